import { Inject, Injectable, Logger } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { billingConfig } from './billing.config';
import { isUUID } from 'class-validator';
import type Stripe from 'stripe';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import type { SessionUser } from '../common/auth/session-user';
import { AppError, CommonErrorCode } from '../common/errors/app-error';
import { BillingErrorCode } from './billing.errors';
import { returning } from '../credits/sql';
import type { Plan } from '../users/user.entity';
import { UsersService } from '../users/users.service';
import type { CreateSubscriptionDto, SubscriptionCreatedDto } from './dto/payment.dto';
import { idempotencyKey } from './idempotency';
import { StripeClient } from './stripe.client';
import { PLAN_GRANTING_STATUSES, TERMINAL_STATUSES } from './subscription.entity';
import {
  GRANTING_PLANS_SQL,
  LIVE_SUBSCRIPTION_SQL,
  PLAN_LOCK_SQL,
  upsertSubscriptionSql,
} from './subscriptions.sql';

/** What `sync` did with a subscription state. */
export type SyncOutcome = 'applied' | 'stale' | 'unknown-user';

const idOf = (v: string | { id: string }): string => (typeof v === 'string' ? v : v.id);

/**
 * Subscriptions: creation for the session user (spec Payments rule 2) and the local copy kept
 * from the processor's events, from which the user's plan is derived.
 */
@Injectable()
export class SubscriptionsService {
  private readonly logger = new Logger('Subscriptions');

  constructor(
    private readonly stripe: StripeClient,
    private readonly users: UsersService,
    @Inject(billingConfig.KEY) private readonly billing: ConfigType<typeof billingConfig>,
    @InjectDataSource() private readonly dataSource: DataSource,
  ) {}

  /** BASIC or PRO for a configured price id (STRIPE_PRICE_*), else null. */
  planForPrice(priceId: string | null | undefined): Exclude<Plan, 'FREE'> | null {
    if (!priceId) return null;
    const { prices } = this.billing.stripe;
    if (prices.PRO === priceId) return 'PRO';
    if (prices.BASIC === priceId) return 'BASIC';
    return null;
  }

  /**
   * Creates an incomplete subscription to `priceId` for the session user (rule 2): a customer
   * is created first when the user has none, and stored. Returns the subscription id and the
   * client secret of its first invoice's payment intent (null when nothing is due).
   * Throws PAYMENTS_NOT_CONFIGURED (503), VALIDATION_FAILED (400) for a price that is not
   * configured, and the processor errors of StripeClient.call.
   */
  async create(
    user: SessionUser,
    dto: CreateSubscriptionDto,
    clientKey?: string,
  ): Promise<SubscriptionCreatedDto> {
    if (!this.stripe.configured)
      throw new AppError(BillingErrorCode.PAYMENTS_NOT_CONFIGURED, 'Payments are not configured');
    if (!this.planForPrice(dto.priceId))
      throw new AppError(
        CommonErrorCode.VALIDATION_FAILED,
        'priceId is not one of the plan prices',
      );
    const key = idempotencyKey(user.id, 'subscription', clientKey);
    const customer = await this.ensureCustomer(user.id);
    const subscription = await this.stripe.call('subscriptions.create', (s) =>
      s.subscriptions.create(
        {
          customer,
          items: [{ price: dto.priceId }],
          payment_behavior: 'default_incomplete',
          payment_settings: { save_default_payment_method: 'on_subscription' },
          expand: ['latest_invoice.payment_intent'],
          metadata: { userId: user.id },
        },
        { idempotencyKey: key },
      ),
    );
    const invoice = subscription.latest_invoice as Stripe.Invoice | null;
    const intent = invoice?.payment_intent as Stripe.PaymentIntent | null | undefined;
    return { subscriptionId: subscription.id, clientSecret: intent?.client_secret ?? null };
  }

  /** The configured price id of `plan` (STRIPE_PRICE_*), or null. */
  priceForPlan(plan: Exclude<Plan, 'FREE'>): string | null {
    return this.billing.stripe.prices[plan] ?? null;
  }

  /** True when the user has a subscription that still gives a plan (active, trialing, past due). */
  async hasLiveSubscription(userId: string): Promise<boolean> {
    const rows = await this.dataSource.query(LIVE_SUBSCRIPTION_SQL, [
      userId,
      [...PLAN_GRANTING_STATUSES],
    ]);
    return rows.length > 0;
  }

  /** The processor's current state of subscription `id`. Throws the errors of call(). */
  retrieve(id: string): Promise<Stripe.Subscription> {
    return this.stripe.call('subscriptions.retrieve', (s) => s.subscriptions.retrieve(id));
  }

  /**
   * Applies a subscription state seen at `stateAt` (Unix seconds: the event's `created`) inside
   * the caller's transaction, then recomputes the owner's plan. The owner is the user with the
   * subscription's customer id, else `metadata.userId` (that customer is then linked to them).
   * A state older than the stored one, or any state after a terminal one (canceled), is
   * ignored ('stale'), so out-of-order delivery ends in the processor's latest state.
   * `deleted` marks a `customer.subscription.deleted` event. An unknown owner is logged and
   * answered 'unknown-user'.
   */
  async sync(
    sub: Stripe.Subscription,
    stateAt: number,
    m: EntityManager,
    deleted = false,
  ): Promise<SyncOutcome> {
    const customerId = idOf(sub.customer);
    const userId = await this.ownerOf(customerId, sub.metadata?.userId, m);
    if (!userId) {
      this.logger.warn({ subscription: sub.id }, 'Subscription of an unknown user ignored');
      return 'unknown-user';
    }
    // Serialises plan changes of one user, so two subscriptions never race on users.plan.
    await m.query(PLAN_LOCK_SQL, [`plan:${userId}`]);
    const priceId = sub.items?.data?.[0]?.price?.id ?? null;
    const upsert = upsertSubscriptionSql({
      processorId: sub.id,
      userId,
      customerId,
      priceId,
      plan: this.planForPrice(priceId),
      status: deleted ? 'canceled' : sub.status,
      currentPeriodEnd: sub.current_period_end ?? null,
      stateAt,
      terminal: [...TERMINAL_STATUSES],
    });
    const rows = await returning<{ id: string }>(m, upsert.sql, upsert.params);
    await this.refreshPlan(userId, m);
    return rows.length ? 'applied' : 'stale';
  }

  /**
   * Sets the user's plan to the best plan among their active or trialing subscriptions
   * (PRO over BASIC), or FREE when there is none.
   */
  private async refreshPlan(userId: string, m: EntityManager): Promise<void> {
    const rows: { plan: string }[] = await m.query(GRANTING_PLANS_SQL, [
      userId,
      [...PLAN_GRANTING_STATUSES],
    ]);
    const plans = new Set(rows.map((r) => r.plan));
    const plan: Plan = plans.has('PRO') ? 'PRO' : plans.has('BASIC') ? 'BASIC' : 'FREE';
    await this.users.setPlan(userId, plan, m);
  }

  /** The user id owning `customerId`, else a valid existing `metadataUserId` (then linked). */
  private async ownerOf(
    customerId: string,
    metadataUserId: string | undefined,
    m: EntityManager,
  ): Promise<string | null> {
    const byCustomer = await this.users.findByPaymentCustomerId(customerId, m);
    if (byCustomer) return byCustomer.id;
    if (!metadataUserId || !isUUID(metadataUserId)) return null;
    const user = await this.users.findById(metadataUserId, m);
    if (!user) return null;
    await this.users.linkPaymentCustomer(user.id, customerId, m);
    return user.id;
  }

  /**
   * The user's payment customer id, creating the customer (email, name, metadata userId) when
   * there is none (also for Checkout, so that the customer portal and saved cards have one). The Idempotency-Key is derived from the user id, so concurrent first
   * subscriptions create one customer.
   */
  async ensureCustomer(userId: string): Promise<string> {
    const user = await this.users.get(userId);
    if (user.paymentCustomerId) return user.paymentCustomerId;
    const customer = await this.stripe.call('customers.create', (s) =>
      s.customers.create(
        { email: user.email, name: user.name ?? undefined, metadata: { userId: user.id } },
        { idempotencyKey: `customer:${user.id}` },
      ),
    );
    return this.users.linkPaymentCustomer(user.id, customer.id);
  }
}
