import { Inject, Injectable, Logger } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { isUUID } from 'class-validator';
import type Stripe from 'stripe';
import type { EntityManager } from 'typeorm';
import { AuditService } from '../audit/audit.service';
import { formatMajor } from '../billing/money';
import { SubscriptionsService } from '../billing/subscriptions.service';
import { appSettingsConfig } from '../config/app-settings.config';
import { CreditsService } from '../credits/credits.service';
import { LOCALES, type Locale } from '../i18n/locale';
import { MailService } from '../mail/mail.service';
import type { User } from '../users/user.entity';
import { UsersService } from '../users/users.service';
import { walletConfig } from './wallet.config';

/** What an invoice event did, as the webhook logs it. */
export type PlanEventOutcome = 'granted' | 'duplicate' | 'ignored' | 'unknown-user' | 'applied';

/** Invoices that pay for a period of the plan: the first one and each renewal. */
const PERIOD_INVOICES = new Set(['subscription_create', 'subscription_cycle']);

const idOf = (v: string | { id: string } | null | undefined): string | null =>
  v == null ? null : typeof v === 'string' ? v : v.id;

/**
 * A plan's included credits and its failed renewals, from invoice events. Each effect runs in
 * the transaction that records the event.
 *
 * Included credits roll over: they are PLAN_GRANT entries added to the balance like any credit,
 * and nothing takes unused ones back at the end of the period.
 */
@Injectable()
export class PlanGrantsService {
  private readonly logger = new Logger('PlanGrants');

  constructor(
    @Inject(walletConfig.KEY) private readonly wallet: ConfigType<typeof walletConfig>,
    @Inject(appSettingsConfig.KEY)
    private readonly appSettings: ConfigType<typeof appSettingsConfig>,
    private readonly subscriptions: SubscriptionsService,
    private readonly credits: CreditsService,
    private readonly users: UsersService,
    private readonly audit: AuditService,
    private readonly mail: MailService,
  ) {}

  /**
   * `invoice.paid` of a period (`billing_reason` subscription_create or subscription_cycle) with
   * something paid: grants PLAN_CREDITS of the invoice's plan (the plan of its line's price) to
   * the subscriber as one PLAN_GRANT entry keyed `plan-grant:<invoice id>`, so one invoice grants
   * once however often it is delivered. A proration (an upgrade's invoice), a trial's free
   * invoice, or a plan without included credits grants nothing. The subscriber is the user with
   * the invoice's customer, else the subscription metadata's `userId`.
   */
  async onInvoicePaid(invoice: Stripe.Invoice, m: EntityManager): Promise<PlanEventOutcome> {
    if (!PERIOD_INVOICES.has(invoice.billing_reason ?? '') || !(invoice.amount_paid > 0))
      return 'ignored';
    const plan = this.planOf(invoice);
    const credits = plan ? (this.wallet.planCredits[plan] ?? 0) : 0;
    if (!plan || credits <= 0) return 'ignored';
    const user = await this.subscriberOf(invoice, m);
    if (!user) {
      this.logger.warn({ invoice: invoice.id }, 'Paid plan invoice of an unknown user ignored');
      return 'unknown-user';
    }
    const reference = `plan-grant:${invoice.id}`;
    const paid = `${formatMajor(invoice.amount_paid)} ${invoice.currency.toUpperCase()}`;
    const description = `${plan} plan: ${credits} included credits (${paid}, ${invoice.id})`;
    const granted = await this.credits.grant(
      user.id,
      credits,
      'PLAN_GRANT',
      description,
      reference,
      m,
    );
    if (!granted) return 'duplicate';
    await this.audit.record(m, {
      action: 'credits.plan.grant',
      targetType: 'user',
      targetId: user.id,
      actor: { id: null, type: 'webhook' },
      details: { credits, plan, invoice: invoice.id, amount: invoice.amount_paid },
    });
    return 'granted';
  }

  /**
   * `invoice.payment_failed` of a subscription: mails the subscriber (the plan is kept while
   * Stripe retries; `customer.subscription.deleted` ends it). The mail is queued in the event's
   * transaction, which the event id makes run once.
   */
  async onInvoicePaymentFailed(
    invoice: Stripe.Invoice,
    m: EntityManager,
  ): Promise<PlanEventOutcome> {
    if (!invoice.subscription) return 'ignored';
    const user = await this.subscriberOf(invoice, m);
    if (!user) return 'unknown-user';
    const locale = localeOf(user.preferences?.locale);
    await this.mail.send({
      to: user.email,
      toProven: user.emailVerifiedAt !== null,
      template: 'payment-failed',
      locale,
      params: {
        name: user.name,
        amountDue: `${formatMajor(invoice.amount_due)} ${invoice.currency.toUpperCase()}`,
        link: `${this.appSettings.baseUrl}/${locale}/dashboard/settings`,
      },
    });
    return 'applied';
  }

  /** The paid plan of the invoice's first line with a configured plan price, or null. */
  private planOf(invoice: Stripe.Invoice): 'BASIC' | 'PRO' | null {
    for (const line of invoice.lines?.data ?? []) {
      const plan = this.subscriptions.planForPrice(line.price?.id);
      if (plan) return plan;
    }
    return null;
  }

  private async subscriberOf(invoice: Stripe.Invoice, m: EntityManager): Promise<User | null> {
    const customer = idOf(invoice.customer);
    const byCustomer = customer ? await this.users.findByPaymentCustomerId(customer, m) : null;
    if (byCustomer) return byCustomer;
    const userId = invoice.subscription_details?.metadata?.userId;
    return userId && isUUID(userId) ? this.users.findById(userId, m) : null;
  }
}

function localeOf(stored: string | null | undefined): Locale {
  return stored && (LOCALES as readonly string[]).includes(stored) ? (stored as Locale) : 'en';
}
