import { Injectable } from '@nestjs/common';
import { isUUID } from 'class-validator';
import type Stripe from 'stripe';
import type { EntityManager } from 'typeorm';
import { AuditService } from '../audit/audit.service';
import { formatMajor, proportionalShare } from '../billing/money';
import { CREDIT_PURCHASE } from '../billing/payments.service';
import { StripeClient } from '../billing/stripe.client';
import { AppError, CommonErrorCode } from '../common/errors/app-error';
import { BillingErrorCode } from '../billing/billing.errors';
import { CreditsService } from '../credits/credits.service';
import { TeamLedgerService } from '../credits/team-ledger.service';
import { ReferralRewardsService } from '../referrals/referral-rewards.service';
import { UsersService } from '../users/users.service';
import { DisputesHandler } from './disputes.handler';
import type { HandlerOutcome } from './handler-outcome';
import { PurchaseLedger } from './purchase-ledger';
import { UnappliableEventError } from './unappliable-event.error';
import { REFUND_LOCK_SQL } from './webhooks.sql';

/** A paid credit purchase as carried by a payment intent or a checkout session. */
export interface PaidPurchase {
  userId?: string | null;
  /** Metadata `teamId`: a purchase for that team's pool (granted into it, the buyer its member). */
  teamId?: string | null;
  /** Metadata `credits`: a decimal integer string. */
  credits?: string;
  /** The payment intent id (or the session id when there is none): the grant's unique key. */
  reference: string;
  /** Minor units paid, for the ledger description. */
  amount: number;
  currency: string;
}

/** Processor events act for no user of ours. */
const WEBHOOK_ACTOR = { id: null, type: 'webhook' as const };

/** The metadata's user id for an error message: a malformed value is not echoed. */
const unknownUser = (userId: string | null | undefined) =>
  !userId ? 'no userId' : isUUID(userId) ? `userId ${userId}` : 'a malformed userId';

const idOf = (v: string | { id: string } | null | undefined): string | null =>
  v == null ? null : typeof v === 'string' ? v : v.id;

/**
 * Credit purchases from processor events: the grant on a successful payment and the
 * proportional clawback on a refund. Every effect runs in the caller's transaction (the one
 * that records the event) and is idempotent on the payment intent id, so a payment is granted
 * once however many events name it.
 */
@Injectable()
export class CreditPurchaseHandler {
  constructor(
    private readonly credits: CreditsService,
    private readonly teamLedger: TeamLedgerService,
    private readonly users: UsersService,
    private readonly stripe: StripeClient,
    private readonly referralRewards: ReferralRewardsService,
    private readonly audit: AuditService,
    private readonly disputes: DisputesHandler,
    private readonly ledger: PurchaseLedger,
  ) {}

  /** `payment_intent.succeeded` (spec Events): grants when metadata type is credit_purchase. */
  onPaymentSucceeded(pi: Stripe.PaymentIntent, m: EntityManager): Promise<HandlerOutcome> {
    if (pi.metadata?.type !== CREDIT_PURCHASE) return Promise.resolve('ignored');
    return this.grant(
      {
        userId: pi.metadata.userId,
        teamId: pi.metadata.teamId,
        credits: pi.metadata.credits,
        reference: pi.id,
        amount: pi.amount_received || pi.amount,
        currency: pi.currency,
      },
      m,
    );
  }

  /**
   * Adds `credits` to the user as one PURCHASE entry keyed by `reference` (unique, so a second
   * event for the same payment, even concurrent, grants nothing). The grant also rewards the
   * user's referrer when this is their first qualifying payment, in the same transaction, and a
   * dispute of the payment applied before this grant (a late or replayed event) takes it back.
   * Throws UnappliableEventError when `credits` is not a positive integer or `userId` names no
   * user: someone paid, so the event must reach the failed-webhooks table, not a log line.
   */
  async grant(p: PaidPurchase, m: EntityManager): Promise<HandlerOutcome> {
    const credits = p.credits && /^\d{1,9}$/.test(p.credits) ? Number(p.credits) : 0;
    if (credits <= 0)
      throw new UnappliableEventError(
        `Paid credit purchase ${p.reference} has no usable credits in its metadata`,
      );
    if (!p.userId || !isUUID(p.userId) || !(await this.users.findById(p.userId, m)))
      throw new UnappliableEventError(
        `Paid credit purchase ${p.reference} names no existing user (${unknownUser(p.userId)})`,
      );
    await this.disputes.lockPayment(p.reference, m);
    const paid = `${formatMajor(p.amount)} ${p.currency.toUpperCase()}`;
    const description = `Purchase of ${credits} credits (${paid}, ${p.reference})`;
    const granted = p.teamId
      ? await this.grantPool(p, p.userId, credits, description, m)
      : await this.credits.grant(p.userId, credits, 'PURCHASE', description, p.reference, m);
    if (!granted) return 'duplicate';
    await this.audit.record(m, {
      action: 'credits.purchase.grant',
      targetType: p.teamId ? 'team' : 'user',
      targetId: p.teamId ?? p.userId,
      actor: WEBHOOK_ACTOR,
      details: { credits, reference: p.reference, amount: p.amount, currency: p.currency },
    });
    const payment = { id: p.reference, amount: p.amount, currency: p.currency };
    await this.referralRewards.onPaymentSucceeded(p.userId, payment, m);
    await this.disputes.onLateGrant(p.reference, m);
    return 'granted';
  }

  /**
   * A purchase for a team's pool: granted into the pool once (keyed by the payment), the buyer
   * named as its member. A team that is gone (or a malformed id) makes the event unappliable.
   */
  private async grantPool(
    p: PaidPurchase,
    buyer: string,
    credits: number,
    description: string,
    m: EntityManager,
  ): Promise<boolean> {
    const gone = () =>
      new UnappliableEventError(`Paid credit purchase ${p.reference} names no existing team`);
    if (!p.teamId || !isUUID(p.teamId)) throw gone();
    try {
      return await this.teamLedger.grant(
        p.teamId,
        buyer,
        credits,
        'PURCHASE',
        description,
        p.reference,
        m,
      );
    } catch (err) {
      if (err instanceof AppError && err.code === CommonErrorCode.NOT_FOUND) throw gone();
      throw err;
    }
  }

  /**
   * Before the transaction of a `charge.refunded` event: when the refunded payment has not been
   * granted yet (the refund event came first), fetch its payment intent so that the grant can
   * be made before it is taken back. Undefined otherwise, without a secret key, or for an
   * intent the processor does not know. Throws the processor's transient errors (→ 500, retry).
   */
  async prepareRefund(charge: Stripe.Charge): Promise<Stripe.PaymentIntent | undefined> {
    const pi = idOf(charge.payment_intent);
    if (!pi || !this.stripe.configured || (await this.credits.findByReference(pi))) return;
    try {
      return await this.stripe.call('paymentIntents.retrieve', (s) =>
        s.paymentIntents.retrieve(pi),
      );
    } catch (err) {
      // An intent the processor does not know bought nothing here; anything else is retried.
      if (err instanceof AppError && err.code === BillingErrorCode.PAYMENT_REQUEST_INVALID) return;
      throw err;
    }
  }

  /**
   * `charge.refunded`: takes back floor(granted × amount_refunded / amount) credits of the
   * purchase, less what earlier refund events of this payment already took, as REFUND entries
   * bounded by the balance (a shortfall is written in the entry's description). Serialised per
   * payment, so the total taken never exceeds the proportional share of the latest cumulative
   * refund, in any order or number of deliveries. `latePayment` is the intent fetched by
   * prepareRefund: granted first when it is a succeeded credit purchase.
   */
  async onChargeRefunded(
    charge: Stripe.Charge,
    latePayment: Stripe.PaymentIntent | undefined,
    m: EntityManager,
  ): Promise<HandlerOutcome> {
    const pi = idOf(charge.payment_intent);
    if (!pi) return 'ignored';
    await m.query(REFUND_LOCK_SQL, [`refund:${pi}`]);
    if (latePayment?.id === pi && latePayment.status === 'succeeded')
      await this.onPaymentSucceeded(latePayment, m);
    return this.takeBackShare(pi, charge.amount_refunded, charge.amount, charge.currency, m);
  }

  /**
   * Takes back floor(granted × `refunded` / `paid`) credits (minor units, cumulative for the
   * payment) of the purchase granted under `pi`, less what earlier refunds of it already took,
   * as one REFUND entry on the account it was granted to (the buyer's balance or the team's
   * pool), bounded by that balance (a shortfall is written in its description).
   * The caller holds the payment's refund lock (`refund:<pi>`) or its purchase row.
   */
  async takeBackShare(
    pi: string,
    refunded: number,
    paid: number,
    currency: string,
    m: EntityManager,
  ): Promise<HandlerOutcome> {
    const purchase = await this.ledger.find(pi, m);
    if (!purchase || purchase.type !== 'PURCHASE') return 'ignored';

    const share = proportionalShare(purchase.amount, refunded, paid);
    const prefix = `refund:${pi}:`;
    const taken = -(await this.ledger.sum(purchase.account, prefix, m));
    const due = share - taken;
    if (due <= 0) return 'duplicate';
    const what = `${formatMajor(refunded)} of ${formatMajor(paid)}`;
    await this.ledger.clawback(
      purchase.account,
      due,
      `${prefix}${refunded}`,
      `Refund of ${what} ${currency.toUpperCase()} (${pi}): ${due} credits taken back`,
      m,
    );
    await this.audit.record(m, {
      action: 'credits.refund.clawback',
      ...this.ledger.target(purchase.account),
      actor: WEBHOOK_ACTOR,
      details: { credits: due, reference: pi, refunded, paid, currency },
    });
    return 'clawed-back';
  }
}
