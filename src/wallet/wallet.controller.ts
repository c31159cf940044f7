import { Body, Controller, Get, Headers, HttpCode, Post, Req } from '@nestjs/common';
import { ApiHeader, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { paymentErrors } from '../billing/api-payment-errors';
import { IDEMPOTENCY_HEADER } from '../billing/idempotency';
import { CurrentUser } from '../common/auth/auth.decorators';
import type { SessionUser } from '../common/auth/session-user';
import { Endpoint } from '../common/openapi/endpoint.decorator';
import { resolveLocale } from '../i18n/locale';
import { CheckoutService } from './checkout.service';
import { CreditPacksService } from './credit-packs.service';
import {
  CheckoutSessionDto,
  CreditPacksDto,
  PackCheckoutDto,
  PlanCheckoutDto,
  PortalSessionDto,
} from './dto/wallet.dto';

const UNKNOWN_PACK = { status: 400, description: 'No such pack on sale (`code`: UNKNOWN_PACK)' };

/** Credit packs and their Checkout (`/api/credits/...`), envelope C. */
@ApiTags('payments')
@Controller('api/credits')
export class CreditPacksController {
  constructor(
    private readonly packs: CreditPacksService,
    private readonly checkout: CheckoutService,
  ) {}

  @Get('packs')
  @Endpoint({ summary: 'The credit packs on sale', access: 'session' })
  @ApiOkResponse({ type: CreditPacksDto })
  async list(): Promise<CreditPacksDto> {
    return { packs: await this.packs.onSale() };
  }

  @Post('checkout')
  @HttpCode(200)
  @Endpoint({
    summary: 'Buy a credit pack through Stripe Checkout',
    description:
      'Creates a Checkout Session (`mode=payment`) and a pending purchase; send the browser to ' +
      '`url`. The credits arrive once with the paid session’s webhook.',
    access: 'session',
    errors: [UNKNOWN_PACK, ...paymentErrors(402, 403, 404, 409, 502, 503)],
    body: { type: PackCheckoutDto, example: { packId: 'starter', saveCard: true } },
  })
  @ApiHeader(IDEMPOTENCY_HEADER)
  @ApiOkResponse({ type: CheckoutSessionDto })
  buy(
    @CurrentUser() user: SessionUser,
    @Body() dto: PackCheckoutDto,
    @Req() req: Request,
    @Headers('idempotency-key') key?: string,
  ): Promise<CheckoutSessionDto> {
    return this.checkout.pack(user, dto, resolveLocale(req), key);
  }
}

/** Plans through Checkout and the customer portal (`/api/billing/...`), envelope C. */
@ApiTags('payments')
@Controller('api/billing')
export class BillingCheckoutController {
  constructor(private readonly checkout: CheckoutService) {}

  @Post('checkout')
  @HttpCode(200)
  @Endpoint({
    summary: 'Subscribe to a plan through Stripe Checkout',
    description:
      'Creates a subscription Checkout Session for the plan’s price; send the browser to `url`. ' +
      'The plan and its included credits arrive with the webhooks.',
    access: 'session',
    errors: [
      {
        status: 400,
        description: 'A plan without a price (`code`: PLAN_NOT_AVAILABLE), or invalid input',
      },
      {
        status: 409,
        description:
          'A subscription already gives a plan (`code`: ALREADY_SUBSCRIBED): use the portal',
      },
      ...paymentErrors(502, 503),
    ],
    body: { type: PlanCheckoutDto, example: { plan: 'PRO' } },
  })
  @ApiHeader(IDEMPOTENCY_HEADER)
  @ApiOkResponse({ type: CheckoutSessionDto })
  subscribe(
    @CurrentUser() user: SessionUser,
    @Body() dto: PlanCheckoutDto,
    @Req() req: Request,
    @Headers('idempotency-key') key?: string,
  ): Promise<CheckoutSessionDto> {
    return this.checkout.plan(user, dto, resolveLocale(req), key);
  }

  @Post('portal')
  @HttpCode(200)
  @Endpoint({
    summary: 'The Stripe customer portal (payment methods, invoices, plan changes)',
    access: 'session',
    errors: [
      {
        status: 409,
        description: 'No billing account yet (`code`: NO_PAYMENT_CUSTOMER)',
      },
      ...paymentErrors(502, 503),
    ],
  })
  @ApiOkResponse({ type: PortalSessionDto })
  portal(@CurrentUser() user: SessionUser, @Req() req: Request): Promise<PortalSessionDto> {
    return this.checkout.portal(user, resolveLocale(req));
  }
}
