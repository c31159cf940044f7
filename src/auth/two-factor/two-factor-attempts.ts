import { Inject, Injectable } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { twoFactorConfig } from './two-factor.config';
import { RateLimitedError } from '../../common/errors/app-error';
import { FailureCounter, type FailureWindow } from './failure-counter';

/**
 * Rate limit of failed second-factor attempts: TWO_FACTOR_MAX_FAILURES per user and
 * per client IP within TWO_FACTOR_LOCKOUT_SECONDS. Every failure counts (wrong, replayed or used
 * codes, a wrong password on disable); once either count reaches the limit every attempt is
 * refused with 429, a correct code too, until that window closes.
 */
@Injectable()
export class TwoFactorAttempts {
  constructor(
    private readonly counter: FailureCounter,
    @Inject(twoFactorConfig.KEY) private readonly twoFactor: ConfigType<typeof twoFactorConfig>,
  ) {}

  /** Throws RateLimitedError (429, Retry-After in seconds) while the user or the IP is locked out. */
  async assertAllowed(userId: string, ip: string | undefined): Promise<void> {
    const { maxFailures } = this.settings;
    const windows = await Promise.all(this.keys(userId, ip).map((k) => this.counter.peek(k)));
    const locked = windows.filter((w) => w.count >= maxFailures);
    if (locked.length) throw this.lockedOut(locked);
  }

  /** Counts one failure for the user and for the IP. */
  async recordFailure(userId: string, ip: string | undefined): Promise<void> {
    const windowMs = this.settings.lockoutSeconds * 1000;
    await Promise.all(this.keys(userId, ip).map((k) => this.counter.add(k, windowMs)));
  }

  private keys(userId: string, ip: string | undefined): string[] {
    return [`2fa:user:${userId}`, ...(ip ? [`2fa:ip:${ip}`] : [])];
  }

  private lockedOut(windows: FailureWindow[]): RateLimitedError {
    const ms = Math.max(...windows.map((w) => w.msLeft));
    return new RateLimitedError(
      'Too many failed two-factor attempts; try again later',
      Math.max(1, Math.ceil(ms / 1000)),
    );
  }

  private get settings(): ConfigType<typeof twoFactorConfig> {
    return this.twoFactor;
  }
}
