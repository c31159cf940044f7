import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { CurrentUser } from '../common/auth/auth.decorators';
import type { SessionUser } from '../common/auth/session-user';
import { Endpoint } from '../common/openapi/endpoint.decorator';
import { paymentErrors } from './api-payment-errors';
import { InvoicesDto } from './dto/payment.dto';
import { PaymentsService } from './payments.service';

/** `GET /api/billing/history` (spec Limits 5), envelope C. */
@ApiTags('payments')
@Controller('api/billing')
export class BillingController {
  constructor(private readonly payments: PaymentsService) {}

  @Get('history')
  @Endpoint({
    summary: 'My last 10 invoices',
    access: 'session',
    errors: paymentErrors(502, 503),
  })
  @ApiOkResponse({ type: InvoicesDto })
  history(@CurrentUser() user: SessionUser): Promise<InvoicesDto> {
    return this.payments.history(user);
  }
}
