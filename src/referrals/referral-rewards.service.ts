import { Injectable, Logger } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { EntityManager } from 'typeorm';
import type { AppConfig } from '../config/app.config';
import { CreditsService } from '../credits/credits.service';
import { returning } from '../credits/sql';
import { REWARD_REFERENCE } from './referrals.service';

/**
 * The referrer's reward (issue 16), triggered from payment webhooks and written in the same
 * transaction as the event's row: granted once per referred user at their first paid payment
 * (a BONUS keyed `referral:<referredId>`), at most REFERRAL_MONTHLY_CAP per referrer and
 * calendar month (UTC), and taken back once if that payment is fully refunded.
 */
@Injectable()
export class ReferralRewardsService {
  private readonly logger = new Logger('ReferralRewards');

  constructor(
    private readonly credits: CreditsService,
    private readonly config: ConfigService<AppConfig, true>,
  ) {}

  /**
   * `payment` (an intent id) of `referredId` succeeded. Rewards their referrer when the
   * referral is still pending and the referrer is under this month's cap; a referral over the
   * cap stays pending, so a later payment may reward it in a later month. Returns whether a
   * reward was granted. Serialised per referral (row lock) and per referrer (advisory lock),
   * so concurrent payments never reward twice or exceed the cap.
   */
  async onPaymentSucceeded(
    referredId: string,
    payment: string,
    m: EntityManager,
  ): Promise<boolean> {
    const [referral] = await m.query(
      `SELECT "referrerId", status FROM referrals WHERE "referredId" = $1 FOR UPDATE`,
      [referredId],
    );
    if (!referral || referral.status !== 'pending') return false;
    const { reward, monthlyCap } = this.config.get('referrals', { infer: true });
    await m.query('SELECT pg_advisory_xact_lock(hashtext($1))', [
      `referral-cap:${referral.referrerId}`,
    ]);
    const [{ n }] = await m.query(
      `SELECT count(*)::int AS n FROM referrals WHERE "referrerId" = $1
       AND "rewardedAt" >= date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'`,
      [referral.referrerId],
    );
    if (n >= monthlyCap) {
      this.logger.log({ referrer: referral.referrerId, referredId }, 'Referral cap reached');
      return false;
    }
    const granted = await this.credits.grant(
      referral.referrerId,
      reward,
      'BONUS',
      `Referral reward: first payment of a referred user (${payment})`,
      `${REWARD_REFERENCE}${referredId}`,
      m,
    );
    if (!granted) return false;
    await m.query(
      `UPDATE referrals SET status = 'rewarded', "rewardPayment" = $2, "rewardedAt" = now()
       WHERE "referredId" = $1`,
      [referredId, payment],
    );
    return true;
  }

  /**
   * `payment` was fully refunded: when it earned a referral reward, takes that reward back from
   * the referrer, bounded by their balance (a shortfall is written in the entry, as in every
   * clawback), once. Returns the credits taken, or null when nothing was reversed.
   */
  async onPaymentRefunded(payment: string, m: EntityManager): Promise<number | null> {
    const rows = await returning<{ referredId: string; referrerId: string }>(
      m,
      `UPDATE referrals SET status = 'reversed', "reversedAt" = now()
       WHERE "rewardPayment" = $1 AND status = 'rewarded' RETURNING "referredId", "referrerId"`,
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
      `Referral reward reversed: the rewarding payment was refunded (${payment})`,
      m,
    );
  }
}
