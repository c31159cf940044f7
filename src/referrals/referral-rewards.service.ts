import { Inject, Injectable, Logger } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { referralsConfig } from './referrals.config';
import type { EntityManager } from 'typeorm';
import { CreditsService } from '../credits/credits.service';
import { returning } from '../credits/sql';
import { REWARD_REFERENCE } from './referrals.service';
import {
  LOCK_REFERRAL_SQL,
  MARK_REWARDED_SQL,
  REFERRER_CAP_LOCK_SQL,
  REVERSE_REFERRAL_SQL,
  REWARDED_THIS_MONTH_SQL,
} from './referrals.sql';

/** A payment as the reward rules see it: the intent id, minor units, lower-case currency. */
export interface ReferralPayment {
  id: string;
  amount: number;
  currency: string;
}

/** Why a reward is taken back, for the ledger entry's description. */
export type ReversalCause = 'refunded' | 'disputed';

/**
 * The referrer's reward, triggered from payment webhooks and written in the same transaction as
 * the event's row: granted once per referred user, verified, at their first payment of at least
 * REFERRAL_MIN_PAYMENT (a BONUS keyed `referral:<referredId>`), at most REFERRAL_MONTHLY_CAP per
 * referrer and calendar month (UTC), and taken back once when that payment is refunded, in part
 * or in full, or disputed. A smaller payment leaves the referral pending, so that the reward
 * never costs less than the minimum payment.
 */
@Injectable()
export class ReferralRewardsService {
  private readonly logger = new Logger('ReferralRewards');

  constructor(
    private readonly credits: CreditsService,
    @Inject(referralsConfig.KEY) private readonly referrals: ConfigType<typeof referralsConfig>,
  ) {}

  /**
   * Whether `payment` is large enough to earn a reward: at least REFERRAL_MIN_PAYMENT for
   * `usd`, REFERRAL_MIN_PAYMENT_CNY for `cny`. Any other currency has no configured rate, so
   * it never qualifies.
   */
  qualifies(payment: ReferralPayment): boolean {
    const { minPaymentUsd, minPaymentCny } = this.referrals;
    const minimum = { usd: minPaymentUsd, cny: minPaymentCny }[payment.currency.toLowerCase()];
    if (minimum === undefined || !Number.isInteger(payment.amount)) return false;
    return payment.amount > 0 && payment.amount >= Math.round(minimum * 100);
  }

  /**
   * `payment` of `referredId` succeeded. Rewards their referrer when the payment qualifies
   * (`qualifies`), the referred user's email is verified, the referral is still pending and the
   * referrer is under this month's cap; a referral over the cap, paid below the minimum or by an
   * unverified account, stays pending, so a later payment may reward it. Returns whether a reward was granted. Serialised per referral (row lock) and per
   * referrer (advisory lock), so concurrent payments never reward twice or exceed the cap.
   */
  async onPaymentSucceeded(
    referredId: string,
    payment: ReferralPayment,
    m: EntityManager,
  ): Promise<boolean> {
    if (!this.qualifies(payment)) return false;
    // The referred account must have proven its address: a made-up address earns nothing.
    const [referral] = await m.query(LOCK_REFERRAL_SQL, [referredId]);
    if (!referral || referral.status !== 'pending' || !referral.verified) return false;
    const { reward, monthlyCap } = this.referrals;
    await m.query(REFERRER_CAP_LOCK_SQL, [`referral-cap:${referral.referrerId}`]);
    const [{ n }] = await m.query(REWARDED_THIS_MONTH_SQL, [referral.referrerId]);
    if (n >= monthlyCap) {
      this.logger.log({ referrer: referral.referrerId, referredId }, 'Referral cap reached');
      return false;
    }
    const granted = await this.credits.grant(
      referral.referrerId,
      reward,
      'BONUS',
      `Referral reward: first payment of a referred user (${payment.id})`,
      `${REWARD_REFERENCE}${referredId}`,
      m,
    );
    if (!granted) return false;
    await m.query(MARK_REWARDED_SQL, [referredId, payment.id]);
    return true;
  }

  /**
   * `payment` (an intent id) was refunded, in part or in full, or disputed: when it earned a
   * referral reward, takes that reward back from the referrer, bounded by their balance (a
   * shortfall is written in the entry, as in every clawback). Once: the referral moves to
   * `reversed` under its row lock and the entry is keyed `referral:<referredId>:reversal`, so a
   * second refund, a dispute after a refund or a redelivery takes nothing. Returns the credits
   * taken, or null when nothing was reversed.
   */
  async onPaymentReversed(
    payment: string,
    cause: ReversalCause,
    m: EntityManager,
  ): Promise<number | null> {
    const rows = await returning<{ referredId: string; referrerId: string }>(
      m,
      REVERSE_REFERRAL_SQL,
      [payment],
    );
    if (!rows.length) return null;
    const { referredId, referrerId } = rows[0];
    const granted = await this.credits.findByReference(`${REWARD_REFERENCE}${referredId}`, m);
    if (!granted || granted.amount <= 0) return 0;
    return this.credits.clawback(
      referrerId,
      granted.amount,
      `${REWARD_REFERENCE}${referredId}:reversal`,
      `Referral reward reversed: the rewarding payment was ${cause} (${payment})`,
      m,
    );
  }
}
