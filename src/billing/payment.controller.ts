import { Body, Controller, Get, Headers, HttpCode, Post } from '@nestjs/common';
import { ApiHeader, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { IDEMPOTENCY_HEADER } from './idempotency';
import { CurrentUser } from '../common/auth/auth.decorators';
import type { SessionUser } from '../common/auth/session-user';
import { Endpoint } from '../common/openapi/endpoint.decorator';
import { paymentErrors } from './api-payment-errors';
import {
  ClientSecretDto,
  CreatePaymentIntentDto,
  CreateSubscriptionDto,
  PaymentConfigDto,
  RefundDto,
  RefundResponseDto,
  SubscriptionCreatedDto,
} from './dto/payment.dto';
import { PaymentsService } from './payments.service';
import { SubscriptionsService } from './subscriptions.service';

/**
 * Spec "Payments and credits" under /api/payment, envelope C. Every route answers 503
 * PAYMENTS_NOT_CONFIGURED without STRIPE_SECRET_KEY; processor failures are 402 (card),
 * 400 (invalid request) or 502.
 */
@ApiTags('payments')
@Controller('api/payment')
export class PaymentController {
  constructor(
    private readonly payments: PaymentsService,
    private readonly subscriptions: SubscriptionsService,
  ) {}

  @Get('config')
  @Endpoint({
    summary: 'The publishable key and plans',
    access: 'public',
    database: false,
    errors: paymentErrors(503),
  })
  @ApiOkResponse({ type: PaymentConfigDto })
  config(): PaymentConfigDto {
    return this.payments.paymentConfig();
  }

  @Post('create-subscription')
  @HttpCode(200)
  @Endpoint({
    summary: 'Subscribe to a plan',
    access: 'session',
    errors: paymentErrors(400, 402, 409, 502, 503),
    body: { type: CreateSubscriptionDto, example: { priceId: 'price_basic_monthly' } },
  })
  @ApiHeader(IDEMPOTENCY_HEADER)
  @ApiOkResponse({ type: SubscriptionCreatedDto })
  createSubscription(
    @CurrentUser() user: SessionUser,
    @Body() dto: CreateSubscriptionDto,
    @Headers('idempotency-key') key?: string,
  ): Promise<SubscriptionCreatedDto> {
    return this.subscriptions.create(user, dto, key);
  }

  @Post('create-payment-intent')
  @HttpCode(200)
  @Endpoint({
    summary: 'Start a one-time payment',
    access: 'session',
    errors: paymentErrors(400, 402, 409, 502, 503),
    body: { type: CreatePaymentIntentDto, example: { amount: 19.99, currency: 'usd' } },
  })
  @ApiHeader(IDEMPOTENCY_HEADER)
  @ApiOkResponse({ type: ClientSecretDto })
  createPaymentIntent(
    @CurrentUser() user: SessionUser,
    @Body() dto: CreatePaymentIntentDto,
    @Headers('idempotency-key') key?: string,
  ): Promise<ClientSecretDto> {
    return this.payments.createPaymentIntent(user, dto, key);
  }

  @Post('refund')
  @HttpCode(200)
  @Endpoint({
    summary: 'Refund a payment (admin)',
    access: { roles: ['ADMIN'] },
    errors: paymentErrors(400, 502, 503),
    body: {
      type: RefundDto,
      example: { paymentIntentId: 'pi_3MtwBwLkdIwHu7ix28a3tqPa', amount: 5 },
    },
  })
  @ApiHeader(IDEMPOTENCY_HEADER)
  @ApiOkResponse({ type: RefundResponseDto })
  refund(
    @CurrentUser() admin: SessionUser,
    @Body() dto: RefundDto,
    @Headers('idempotency-key') key?: string,
  ): Promise<RefundResponseDto> {
    return this.payments.refund(admin, dto, key);
  }
}
