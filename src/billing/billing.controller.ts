import { Controller, Get } from '@nestjs/common';
import { ApiBearerAuth, ApiCookieAuth, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { CurrentUser } from '../common/auth/auth.decorators';
import type { SessionUser } from '../common/auth/session-user';
import { ApiPaymentErrors } from './api-payment-errors';
import { InvoicesDto } from './dto/payment.dto';
import { PaymentsService } from './payments.service';

/** `GET /api/billing/history` (spec Limits 5), envelope C. */
@ApiTags('payments')
@ApiBearerAuth()
@ApiCookieAuth()
@Controller('api/billing')
export class BillingController {
  constructor(private readonly payments: PaymentsService) {}

  @Get('history')
  @ApiOkResponse({ type: InvoicesDto })
  @ApiPaymentErrors(401, 502, 503)
  history(@CurrentUser() user: SessionUser): Promise<InvoicesDto> {
    return this.payments.history(user);
  }
}
