import { Injectable } from '@nestjs/common';
import type Stripe from 'stripe';
import type { EntityManager } from 'typeorm';
import { AuditService } from '../audit/audit.service';
import { formatMajor } from '../billing/money';
import { PurchasesService } from '../billing/purchases.service';
import { ReferralRewardsService } from '../referrals/referral-rewards.service';
import type { HandlerOutcome } from './handler-outcome';
import type { PaymentDispute } from './payment-dispute.entity';
import { PurchaseLedger } from './purchase-ledger';
import {
  INSERT_DISPUTE_SQL,
  LOCK_DISPUTE_SQL,
  OPEN_CLAWED_DISPUTES_SQL,
  REFUND_LOCK_SQL,
  SET_CREDITS_RESTORED_SQL,
  SET_CREDITS_TAKEN_SQL,
  SET_DISPUTE_STATUS_SQL,
} from './webhooks.sql';

/** Closed dispute statuses that leave the money with us: a won dispute, a closed inquiry. */
const DECIDED_FOR_US = ['won', 'warning_closed'];

/** Processor events act for no user of ours. */
const WEBHOOK_ACTOR = { id: null, type: 'webhook' as const };

const idOf = (v: string | { id: string } | null | undefined): string | null =>
  v == null ? null : typeof v === 'string' ? v : v.id;

const isStripeId = (v: unknown): v is string =>
  typeof v === 'string' && v.length > 0 && v.length <= 255;

type DisputeRow = Pick<
  PaymentDispute,
  'id' | 'paymentIntentId' | 'status' | 'amount' | 'currency' | 'creditsTaken' | 'creditsRestored'
>;

/**
 * Chargebacks. `charge.dispute.created` takes back the credits the disputed purchase still
 * holds (granted less what refunds took), bounded by the balance with the shortfall written in
 * the entry, exactly as a refund; reverses the referral reward the payment earned; marks the
 * purchase `disputed`; and audits it. `charge.dispute.closed` with `won` (or a closed inquiry,
 * `warning_closed`) gives the credits taken back once; a lost dispute keeps them taken.
 *
 * The clawback is keyed `refund:<pi>:dispute:<dp>` and the give-back `…:won`, so the refund
 * clawback of the same payment (which sums `refund:<pi>:*`) counts them, and a refund after a
 * dispute never takes the same credits twice. Each dispute's row in `payment_disputes`, locked
 * for the event's transaction, makes both events apply once and in any order: a close seen
 * before the `created` leaves nothing for it to take (won) or takes the credits itself (lost);
 * a grant made after the dispute (its payment event replayed late) is taken back at once.
 */
@Injectable()
export class DisputesHandler {
  constructor(
    private readonly ledger: PurchaseLedger,
    private readonly purchases: PurchasesService,
    private readonly referralRewards: ReferralRewardsService,
    private readonly audit: AuditService,
  ) {}

  /** `charge.dispute.created`: the clawback, once per dispute. */
  async onCreated(dispute: Stripe.Dispute, m: EntityManager): Promise<HandlerOutcome> {
    const row = await this.lock(dispute, m);
    if (!row) return 'ignored';
    if (row.creditsTaken !== null || DECIDED_FOR_US.includes(row.status)) return 'duplicate';
    return this.takeBack(row, m);
  }

  /**
   * The purchase of `pi` has just been granted, in this transaction, later than a dispute of it
   * was applied (its payment event failed and was replayed, or came late): each dispute still
   * standing takes the credits back now, as it would have at `created`. The caller holds the
   * payment's lock (`lockPayment`).
   */
  async onLateGrant(pi: string, m: EntityManager): Promise<void> {
    const rows: DisputeRow[] = await m.query(OPEN_CLAWED_DISPUTES_SQL, [pi, DECIDED_FOR_US]);
    for (const row of rows)
      if (!(await this.ledger.find(`refund:${pi}:dispute:${row.id}`, m)))
        await this.takeBack(row, m);
  }

  /**
   * Serialises the events that grant, refund or dispute one payment, always in the same order
   * (its purchase row, then the `refund:<pi>` lock) so that they see each other's effects and
   * never deadlock. Refund events take the same two locks in this order.
   */
  async lockPayment(pi: string, m: EntityManager): Promise<void> {
    await this.purchases.lockByIntent(pi, m);
    await m.query(REFUND_LOCK_SQL, [`refund:${pi}`]);
  }

  /**
   * `charge.dispute.closed`: records the outcome; won → gives back what was taken, once; lost →
   * the clawback stands (made now when the `created` event has not been seen).
   */
  async onClosed(dispute: Stripe.Dispute, m: EntityManager): Promise<HandlerOutcome> {
    const row = await this.lock(dispute, m);
    if (!row) return 'ignored';
    await m.query(SET_DISPUTE_STATUS_SQL, [row.id, String(dispute.status).slice(0, 32)]);
    if (!DECIDED_FOR_US.includes(dispute.status))
      return row.creditsTaken === null ? this.takeBack(row, m) : 'duplicate';
    if (row.creditsTaken === null) return 'applied'; // nothing taken: the `created` will see `won`
    if (row.creditsRestored !== null) return 'duplicate';
    return this.giveBack(row, m);
  }

  /** The dispute's row, inserted on first sight and locked; null when it names no payment. */
  private async lock(dispute: Stripe.Dispute, m: EntityManager): Promise<DisputeRow | null> {
    const pi = idOf(dispute?.payment_intent);
    // Stripe ids are short strings; anything else names no payment of ours.
    if (!isStripeId(pi) || !isStripeId(dispute.id)) return null;
    await this.lockPayment(pi, m);
    const charge = idOf(dispute.charge);
    const amount = Number.isInteger(dispute.amount) && dispute.amount >= 0 ? dispute.amount : null;
    const currency = /^[a-z]{3}$/.test(String(dispute.currency)) ? dispute.currency : null;
    await m.query(INSERT_DISPUTE_SQL, [
      dispute.id,
      pi,
      isStripeId(charge) ? charge : null,
      String(dispute.status).slice(0, 32),
      amount && amount <= 2 ** 31 - 1 ? amount : null,
      currency,
    ]);
    const [row] = await m.query(LOCK_DISPUTE_SQL, [dispute.id]);
    return row;
  }

  /** The clawback of a dispute; the caller holds the payment's lock and the dispute's row. */
  private async takeBack(row: DisputeRow, m: EntityManager): Promise<HandlerOutcome> {
    const pi = row.paymentIntentId;
    const purchase = await this.ledger.find(pi, m);
    const ours = purchase?.type === 'PURCHASE';
    let taken = 0;
    if (purchase && ours) {
      const prefix = `refund:${pi}:`;
      const due = purchase.amount + (await this.ledger.sum(purchase.account, prefix, m));
      const paid =
        row.amount !== null
          ? `${formatMajor(row.amount)} ${String(row.currency ?? '').toUpperCase()}`
          : 'a payment';
      if (due > 0)
        taken = await this.ledger.clawback(
          purchase.account,
          due,
          `${prefix}dispute:${row.id}`,
          `Dispute of ${paid} (${pi}, ${row.id}): ${due} credits taken back`,
          m,
        );
      await this.audit.record(m, {
        action: 'credits.dispute.clawback',
        ...this.ledger.target(purchase.account),
        actor: WEBHOOK_ACTOR,
        details: { credits: taken, due: Math.max(due, 0), reference: pi, dispute: row.id },
      });
    }
    await m.query(SET_CREDITS_TAKEN_SQL, [row.id, taken]);
    await this.purchases.transition(pi, 'disputed', m);
    await this.referralRewards.onPaymentReversed(pi, 'disputed', m);
    return ours ? 'clawed-back' : 'ignored';
  }

  private async giveBack(row: DisputeRow, m: EntityManager): Promise<HandlerOutcome> {
    const pi = row.paymentIntentId;
    const purchase = await this.ledger.find(pi, m);
    const amount = purchase ? (row.creditsTaken ?? 0) : 0;
    if (purchase && amount > 0) {
      await this.ledger.giveBack(
        purchase.account,
        amount,
        `refund:${pi}:dispute:${row.id}:won`,
        `Dispute won (${pi}, ${row.id}): ${amount} credits given back`,
        m,
      );
      await this.audit.record(m, {
        action: 'credits.dispute.restore',
        ...this.ledger.target(purchase.account),
        actor: WEBHOOK_ACTOR,
        details: { credits: amount, reference: pi, dispute: row.id },
      });
    }
    await m.query(SET_CREDITS_RESTORED_SQL, [row.id, amount]);
    await this.purchases.endDispute(pi, m);
    return amount > 0 ? 'granted' : 'applied';
  }
}
