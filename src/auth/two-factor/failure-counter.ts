import { Logger } from '@nestjs/common';
import type Redis from 'ioredis';
import type { Clock } from '../../common/clock/clock';

/** Failures counted under one key: how many, and milliseconds until the window closes. */
export interface FailureWindow {
  count: number;
  msLeft: number;
}

/**
 * Fixed-window failure counts (the window opens at the first failure and does not slide).
 * Unlike a throttler's hit counter, reading does not count: only failures do, so a correct code
 * costs nothing and a blocked key stays blocked, whatever is sent, until its window closes.
 */
export abstract class FailureCounter {
  /** The current window of `key` (`{count: 0, msLeft: 0}` when none is open). */
  abstract peek(key: string): Promise<FailureWindow>;
  /** Counts one failure for `key`, opening a window of `windowMs` when none is open. */
  abstract add(key: string, windowMs: number): Promise<FailureWindow>;
}

/** One instance's counts in memory; time from the Clock, so tests move through windows. */
export class MemoryFailureCounter extends FailureCounter {
  private readonly windows = new Map<string, { count: number; endsAt: number }>();

  constructor(private readonly clock: Clock) {
    super();
  }

  peek(key: string): Promise<FailureWindow> {
    const now = this.clock.now().getTime();
    const w = this.windows.get(key);
    if (!w || w.endsAt <= now) return Promise.resolve({ count: 0, msLeft: 0 });
    return Promise.resolve({ count: w.count, msLeft: w.endsAt - now });
  }

  add(key: string, windowMs: number): Promise<FailureWindow> {
    const now = this.clock.now().getTime();
    this.sweep(now);
    const open = this.windows.get(key);
    const w = open && open.endsAt > now ? open : { count: 0, endsAt: now + windowMs };
    w.count += 1;
    this.windows.set(key, w);
    return Promise.resolve({ count: w.count, msLeft: w.endsAt - now });
  }

  // Closed windows are dropped as new failures arrive, so the map stays small.
  private sweep(now: number): void {
    if (this.windows.size < 10_000) return;
    for (const [key, w] of this.windows) if (w.endsAt <= now) this.windows.delete(key);
  }
}

// INCR, and on the first failure of a window set its expiry; answers {count, ms left}.
const ADD_SCRIPT = `
local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return {n, redis.call('PTTL', KEYS[1])}`;

/**
 * Counts shared by every instance, in the Redis of the rate limits (REDIS_URL), under
 * `keyPrefix`. While Redis cannot be reached, counts in memory instead (logged at most every
 * 30 s), as the throttler storage does.
 */
export class RedisFailureCounter extends FailureCounter {
  private readonly logger = new Logger('TwoFactorAttempts');
  private lastLog = 0;

  constructor(
    private readonly redis: Redis,
    private readonly keyPrefix: string,
    private readonly fallback: FailureCounter,
  ) {
    super();
  }

  async peek(key: string): Promise<FailureWindow> {
    try {
      const [[, count], [, ttl]] = (await this.redis
        .multi()
        .get(this.keyPrefix + key)
        .pttl(this.keyPrefix + key)
        .exec()) as [[null, string | null], [null, number]];
      return count ? { count: Number(count), msLeft: Math.max(ttl, 0) } : { count: 0, msLeft: 0 };
    } catch (err) {
      this.warn(err);
      return this.fallback.peek(key);
    }
  }

  async add(key: string, windowMs: number): Promise<FailureWindow> {
    try {
      const [count, ttl] = (await this.redis.eval(
        ADD_SCRIPT,
        1,
        this.keyPrefix + key,
        String(windowMs),
      )) as [number, number];
      return { count, msLeft: Math.max(ttl, 0) };
    } catch (err) {
      this.warn(err);
      return this.fallback.add(key, windowMs);
    }
  }

  private warn(err: unknown): void {
    if (Date.now() - this.lastLog < 30_000) return;
    this.lastLog = Date.now();
    this.logger.warn(
      `Two-factor failure counter not reachable in Redis (${(err as Error).message}); counting in memory`,
    );
  }
}
