import { Body, Controller, Get, Headers, HttpCode, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiCookieAuth, ApiHeader, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { IDEMPOTENCY_HEADER } from './idempotency';
import { CurrentUser, Public, Roles } from '../common/auth/auth.decorators';
import type { SessionUser } from '../common/auth/session-user';
import { ApiPaymentErrors } from './api-payment-errors';
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

  @Public()
  @Get('config')
  @ApiOkResponse({ type: PaymentConfigDto })
  @ApiPaymentErrors(503)
  config(): PaymentConfigDto {
    return this.payments.paymentConfig();
  }

  @Post('create-subscription')
  @HttpCode(200)
  @ApiBearerAuth()
  @ApiCookieAuth()
  @ApiHeader(IDEMPOTENCY_HEADER)
  @ApiOkResponse({ type: SubscriptionCreatedDto })
  @ApiPaymentErrors(400, 401, 402, 409, 502, 503)
  createSubscription(
    @CurrentUser() user: SessionUser,
    @Body() dto: CreateSubscriptionDto,
    @Headers('idempotency-key') key?: string,
  ): Promise<SubscriptionCreatedDto> {
    return this.subscriptions.create(user, dto, key);
  }

  @Post('create-payment-intent')
  @HttpCode(200)
  @ApiBearerAuth()
  @ApiCookieAuth()
  @ApiHeader(IDEMPOTENCY_HEADER)
  @ApiOkResponse({ type: ClientSecretDto })
  @ApiPaymentErrors(400, 401, 402, 409, 502, 503)
  createPaymentIntent(
    @CurrentUser() user: SessionUser,
    @Body() dto: CreatePaymentIntentDto,
    @Headers('idempotency-key') key?: string,
  ): Promise<ClientSecretDto> {
    return this.payments.createPaymentIntent(user, dto, key);
  }

  @Post('refund')
  @HttpCode(200)
  @Roles('ADMIN')
  @ApiBearerAuth()
  @ApiCookieAuth()
  @ApiHeader(IDEMPOTENCY_HEADER)
  @ApiOkResponse({ type: RefundResponseDto })
  @ApiPaymentErrors(400, 401, 403, 502, 503)
  refund(
    @CurrentUser() admin: SessionUser,
    @Body() dto: RefundDto,
    @Headers('idempotency-key') key?: string,
  ): Promise<RefundResponseDto> {
    return this.payments.refund(admin, dto, key);
  }
}
