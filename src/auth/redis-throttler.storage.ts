import { Logger, type OnApplicationShutdown } from '@nestjs/common';
import { ThrottlerStorageRedisService } from '@nest-lab/throttler-storage-redis';
import { type ThrottlerStorage, ThrottlerStorageService } from '@nestjs/throttler';
import Redis from 'ioredis';

type StorageRecord = Awaited<ReturnType<ThrottlerStorage['increment']>>;

/** How often (ms) a Redis outage is logged at most, so a long outage does not flood the log. */
const LOG_EVERY_MS = 30_000;

/**
 * Rate-limit counters in Redis (REDIS_URL), shared by every instance, through
 * `@nest-lab/throttler-storage-redis`. Keys start with `keyPrefix`.
 *
 * A Redis outage never crashes the process nor blocks logins: connection errors are logged
 * (at most every 30 s), commands fail fast (no offline queue, 1 s timeout) and, while Redis is
 * unreachable, each instance counts in its own memory instead. The connection closes on
 * application shutdown.
 */
export class RedisThrottlerStorage implements ThrottlerStorage, OnApplicationShutdown {
  private readonly logger = new Logger('RedisThrottlerStorage');
  readonly redis: Redis;
  private readonly shared: ThrottlerStorageRedisService;
  private readonly fallback = new ThrottlerStorageService();
  private lastLog = 0;

  constructor(
    url: string,
    private readonly keyPrefix: string,
  ) {
    this.redis = new Redis(url, {
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      commandTimeout: 1000,
      connectTimeout: 2000,
      // Reconnect forever, backing off to 5 s between attempts.
      retryStrategy: (times) => Math.min(times * 200, 5000),
    });
    this.redis.on('error', (err: Error) => this.warn(`Redis error: ${err.message}`));
    this.shared = new ThrottlerStorageRedisService(this.redis);
  }

  async increment(
    key: string,
    ttl: number,
    limit: number,
    blockDuration: number,
    throttlerName: string,
  ): Promise<StorageRecord> {
    try {
      return await this.shared.increment(
        this.keyPrefix + key,
        ttl,
        limit,
        blockDuration,
        throttlerName,
      );
    } catch (err) {
      this.warn(
        `Rate-limit counter not reachable in Redis (${(err as Error).message}); counting in memory`,
      );
      return this.fallback.increment(key, ttl, limit, blockDuration, throttlerName);
    }
  }

  async onApplicationShutdown(): Promise<void> {
    this.fallback.onApplicationShutdown();
    if (this.redis.status === 'end') return;
    try {
      if (this.redis.status === 'ready') await this.redis.quit();
      else this.redis.disconnect(false);
    } catch {
      this.redis.disconnect(false);
    }
  }

  private warn(message: string): void {
    if (Date.now() - this.lastLog < LOG_EVERY_MS) return;
    this.lastLog = Date.now();
    this.logger.warn(message);
  }
}
