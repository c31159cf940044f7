import { Inject, Injectable } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { ThrottlerStorage } from '@nestjs/throttler';
import { RateLimitedError } from '../common/errors/app-error';
import { redemptionConfig } from './redemption.config';

/** Redemption attempts are counted per hour. */
const WINDOW_MS = 3_600_000;

/**
 * REDEEM_RATE_PER_HOUR redemption attempts per user and, separately, per client address, counted
 * in the rate limits' storage (Redis with REDIS_URL, shared by every instance) before the code
 * is looked at, so right and wrong guesses cost the same. At 10 an hour, finding one of a
 * million live codes among 2^100 takes about 10^17 years per account.
 */
@Injectable()
export class RedeemRateLimit {
  private readonly perHour: number;

  constructor(
    @Inject(ThrottlerStorage) private readonly counters: ThrottlerStorage,
    @Inject(redemptionConfig.KEY) config: ConfigType<typeof redemptionConfig>,
  ) {
    this.perHour = config.ratePerHour;
  }

  /**
   * Counts one attempt of `userId` from `ip`. Throws RateLimitedError (429, Retry-After) once
   * either has made REDEEM_RATE_PER_HOUR attempts in the hour, until the hour is over.
   */
  async admit(userId: string, ip: string): Promise<void> {
    for (const key of [`redeem:user:${userId}`, `redeem:ip:${ip}`]) {
      const { isBlocked, timeToBlockExpire } = await this.counters.increment(
        key,
        WINDOW_MS,
        this.perHour,
        WINDOW_MS,
        'redeem',
      );
      if (isBlocked)
        throw new RateLimitedError(
          `At most ${this.perHour} redemption attempts an hour; try again later`,
          Math.max(1, timeToBlockExpire),
        );
    }
  }
}
