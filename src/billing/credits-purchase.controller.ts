import { Body, Controller, Headers, HttpCode, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiCookieAuth, ApiHeader, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { IDEMPOTENCY_HEADER } from './idempotency';
import { CurrentUser } from '../common/auth/auth.decorators';
import type { SessionUser } from '../common/auth/session-user';
import { ApiPaymentErrors } from './api-payment-errors';
import { ClientSecretDto, PurchaseCreditsDto } from './dto/payment.dto';
import { PaymentsService } from './payments.service';

/** `POST /api/credits/purchase` (spec Payments rule 3), envelope C. */
@ApiTags('payments')
@ApiBearerAuth()
@ApiCookieAuth()
@Controller('api/credits')
export class CreditsPurchaseController {
  constructor(private readonly payments: PaymentsService) {}

  @Post('purchase')
  @HttpCode(200)
  @ApiHeader(IDEMPOTENCY_HEADER)
  @ApiOkResponse({ type: ClientSecretDto })
  @ApiPaymentErrors(400, 401, 402, 409, 502, 503)
  purchase(
    @CurrentUser() user: SessionUser,
    @Body() dto: PurchaseCreditsDto,
    @Headers('idempotency-key') key?: string,
  ): Promise<ClientSecretDto> {
    return this.payments.purchaseCredits(user, dto, key);
  }
}
