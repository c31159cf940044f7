import { Body, Controller, Headers, HttpCode, Post } from '@nestjs/common';
import { ApiHeader, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { IDEMPOTENCY_HEADER } from './idempotency';
import { CurrentUser } from '../common/auth/auth.decorators';
import type { SessionUser } from '../common/auth/session-user';
import { Endpoint } from '../common/openapi/endpoint.decorator';
import { paymentErrors } from './api-payment-errors';
import { ClientSecretDto, PurchaseCreditsDto } from './dto/payment.dto';
import { PaymentsService } from './payments.service';

/** `POST /api/credits/purchase` (spec Payments rule 3), envelope C. */
@ApiTags('payments')
@Controller('api/credits')
export class CreditsPurchaseController {
  constructor(private readonly payments: PaymentsService) {}

  @Post('purchase')
  @HttpCode(200)
  @Endpoint({
    summary: 'Buy credits',
    description: 'Creates a payment intent; the credits arrive with its `succeeded` webhook.',
    access: 'session',
    errors: paymentErrors(400, 402, 409, 502, 503),
    body: { type: PurchaseCreditsDto, example: { amount: 10, credits: 1000 } },
  })
  @ApiHeader(IDEMPOTENCY_HEADER)
  @ApiOkResponse({ type: ClientSecretDto })
  purchase(
    @CurrentUser() user: SessionUser,
    @Body() dto: PurchaseCreditsDto,
    @Headers('idempotency-key') key?: string,
  ): Promise<ClientSecretDto> {
    return this.payments.purchaseCredits(user, dto, key);
  }
}
