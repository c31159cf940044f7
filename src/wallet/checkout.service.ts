import { Inject, Injectable } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { randomUUID } from 'node:crypto';
import type Stripe from 'stripe';
import { BillingErrorCode } from '../billing/billing.errors';
import { CheckoutPurchasesService } from '../billing/checkout-purchases.service';
import { uuidFrom } from '../billing/credit-purchases.service';
import { idempotencyKey } from '../billing/idempotency';
import { toMinorUnits } from '../billing/money';
import { CREDIT_PURCHASE } from '../billing/payments.service';
import { StripeClient } from '../billing/stripe.client';
import { SubscriptionsService } from '../billing/subscriptions.service';
import type { SessionUser } from '../common/auth/session-user';
import { AppError } from '../common/errors/app-error';
import { appSettingsConfig } from '../config/app-settings.config';
import type { Locale } from '../i18n/locale';
import { TeamsService } from '../teams/teams.service';
import { UsersService } from '../users/users.service';
import { CreditPacksService } from './credit-packs.service';
import type {
  CheckoutSessionDto,
  PackCheckoutDto,
  PlanCheckoutDto,
  PortalSessionDto,
} from './dto/wallet.dto';
import { WalletErrorCode } from './wallet.errors';

/**
 * Stripe Checkout: a session for a credit pack (`mode=payment`), one for a plan
 * (`mode=subscription`), and the customer portal. Nothing is granted here: the webhooks grant a
 * paid session once (docs/payments.md).
 */
@Injectable()
export class CheckoutService {
  constructor(
    private readonly stripe: StripeClient,
    private readonly packs: CreditPacksService,
    private readonly purchases: CheckoutPurchasesService,
    private readonly subscriptions: SubscriptionsService,
    private readonly teams: TeamsService,
    private readonly users: UsersService,
    @Inject(appSettingsConfig.KEY)
    private readonly appSettings: ConfigType<typeof appSettingsConfig>,
  ) {}

  /**
   * A Checkout Session for pack `packId` and its pending purchase. Metadata (on the session and
   * its payment intent) as a credit purchase's: `{userId, credits, type: 'credit_purchase',
   * purchaseId, packId}` and `teamId` for a team's pool (the caller its OWNER or ADMIN).
   * `saveCard` keeps the card for later (`setup_future_usage=off_session`, card only); a cny
   * pack is also offered Alipay and WeChat Pay otherwise. Throws UNKNOWN_PACK (400), 404/403 for
   * the team, PAYMENTS_NOT_CONFIGURED (503) and the processor errors of StripeClient.call.
   */
  async pack(
    user: SessionUser,
    dto: PackCheckoutDto,
    locale: Locale,
    clientKey?: string,
  ): Promise<CheckoutSessionDto> {
    const pack = await this.packs.require(dto.packId);
    if (dto.teamId) await this.teams.requireTeamRole(user, dto.teamId, 'ADMIN');
    this.requireConfigured();
    const key = idempotencyKey(user.id, 'credit-checkout', clientKey);
    // Derived from the key, so a retry with the same Idempotency-Key sends identical parameters.
    const purchaseId = clientKey ? uuidFrom(key) : randomUUID();
    const customer = await this.subscriptions.ensureCustomer(user.id);
    const amount = toMinorUnits(pack.amount);
    const metadata: Record<string, string> = {
      userId: user.id,
      credits: String(pack.credits),
      type: CREDIT_PURCHASE,
      purchaseId,
      packId: pack.id,
      ...(dto.teamId ? { teamId: dto.teamId } : {}),
    };
    const wallets = pack.currency === 'cny' && !dto.saveCard;
    const params: Stripe.Checkout.SessionCreateParams = {
      mode: 'payment',
      customer,
      client_reference_id: user.id,
      line_items: [
        {
          quantity: 1,
          price_data: {
            currency: pack.currency,
            unit_amount: amount,
            product_data: { name: `${pack.credits} credits` },
          },
        },
      ],
      payment_method_types: wallets ? ['card', 'alipay', 'wechat_pay'] : ['card'],
      ...(wallets ? { payment_method_options: { wechat_pay: { client: 'web' } } } : {}),
      metadata,
      payment_intent_data: {
        metadata,
        ...(dto.saveCard ? { setup_future_usage: 'off_session' as const } : {}),
      },
      ...this.returnUrls(locale),
    };
    const session = await this.stripe.call('checkout.sessions.create', (s) =>
      s.checkout.sessions.create(params, { idempotencyKey: key }),
    );
    await this.purchases.record({
      id: purchaseId,
      userId: user.id,
      checkoutSessionId: session.id,
      currency: pack.currency,
      amount,
      credits: pack.credits,
      teamId: dto.teamId ?? null,
    });
    return { url: session.url!, sessionId: session.id };
  }

  /**
   * A subscription Checkout Session for `plan`'s price, the subscription carrying metadata
   * `userId`. Throws PLAN_NOT_AVAILABLE (400) for a plan without a price, ALREADY_SUBSCRIBED
   * (409) when a subscription still gives the user a plan (plans change in the portal),
   * PAYMENTS_NOT_CONFIGURED (503) and the processor errors of StripeClient.call.
   */
  async plan(
    user: SessionUser,
    dto: PlanCheckoutDto,
    locale: Locale,
    clientKey?: string,
  ): Promise<CheckoutSessionDto> {
    this.requireConfigured();
    const price = this.subscriptions.priceForPlan(dto.plan);
    if (!price)
      throw new AppError(WalletErrorCode.PLAN_NOT_AVAILABLE, `The ${dto.plan} plan has no price`);
    if (await this.subscriptions.hasLiveSubscription(user.id))
      throw new AppError(
        WalletErrorCode.ALREADY_SUBSCRIBED,
        'You already have a subscription: change it in the customer portal',
      );
    const key = idempotencyKey(user.id, 'plan-checkout', clientKey);
    const customer = await this.subscriptions.ensureCustomer(user.id);
    const session = await this.stripe.call('checkout.sessions.create', (s) =>
      s.checkout.sessions.create(
        {
          mode: 'subscription',
          customer,
          client_reference_id: user.id,
          line_items: [{ price, quantity: 1 }],
          metadata: { userId: user.id, plan: dto.plan },
          subscription_data: { metadata: { userId: user.id } },
          ...this.returnUrls(locale),
        },
        { idempotencyKey: key },
      ),
    );
    return { url: session.url!, sessionId: session.id };
  }

  /**
   * The customer portal for the user's payment customer, returning to their settings page.
   * Throws NO_PAYMENT_CUSTOMER (409) for a user who never paid through Stripe,
   * PAYMENTS_NOT_CONFIGURED (503) and the processor errors of StripeClient.call.
   */
  async portal(user: SessionUser, locale: Locale): Promise<PortalSessionDto> {
    this.requireConfigured();
    const { paymentCustomerId } = await this.users.get(user.id);
    if (!paymentCustomerId)
      throw new AppError(WalletErrorCode.NO_PAYMENT_CUSTOMER, 'You have no billing account yet');
    const session = await this.stripe.call('billingPortal.sessions.create', (s) =>
      s.billingPortal.sessions.create({
        customer: paymentCustomerId,
        return_url: `${this.appSettings.baseUrl}/${locale}/dashboard/settings`,
      }),
    );
    return { url: session.url };
  }

  private returnUrls(locale: Locale): { success_url: string; cancel_url: string } {
    const base = `${this.appSettings.baseUrl}/${locale}`;
    return {
      success_url: `${base}/payment/success?session_id={CHECKOUT_SESSION_ID}`,
      cancel_url: `${base}/dashboard`,
    };
  }

  private requireConfigured(): void {
    if (!this.stripe.configured)
      throw new AppError(BillingErrorCode.PAYMENTS_NOT_CONFIGURED, 'Payments are not configured');
  }
}
