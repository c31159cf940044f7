import { Inject, Injectable } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { uploadsConfig } from './uploads.config';
import { InjectDataSource } from '@nestjs/typeorm';
import { ThrottlerStorage } from '@nestjs/throttler';
import type { DataSource, EntityManager } from 'typeorm';
import { AppError, RateLimitedError } from '../common/errors/app-error';
import { UploadsErrorCode } from './uploads.errors';
import { LOCK_USER_UPLOADS_SQL, USED_BYTES_SQL } from './upload-quota.sql';

/** Upload attempts are counted per user and hour. */
const RATE_WINDOW_MS = 3_600_000;

/**
 * Per-user upload limits: UPLOAD_RATE_PER_HOUR attempts an hour and UPLOAD_QUOTA_BYTES of stored
 * uploads. The quota is the sum of the sizes of the user's `uploads` rows, so deleting an upload
 * (or the user) frees its bytes at once. It is decided twice: cheaply before the body is read
 * (`admit`: a user already at the quota, or a declared body that cannot fit, writes nothing), and
 * exactly when the stored file is recorded (`reserve`, serialised per user, so parallel uploads
 * cannot together pass the quota by more than nothing).
 */
@Injectable()
export class UploadQuota {
  private readonly quotaBytes: number;
  private readonly ratePerHour: number;

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    @Inject(ThrottlerStorage) private readonly counters: ThrottlerStorage,
    @Inject(uploadsConfig.KEY) uploads: ConfigType<typeof uploadsConfig>,
  ) {
    ({ quotaBytes: this.quotaBytes, ratePerHour: this.ratePerHour } = uploads);
  }

  /**
   * Before multer reads the body of an upload by `userId`: counts the attempt in the rate
   * limits' storage (Redis with REDIS_URL), then checks the quota against `fileBytesAtLeast`,
   * the fewest bytes the file can have (0 when unknown).
   * Throws RateLimitedError (429, Retry-After) past UPLOAD_RATE_PER_HOUR attempts in the hour,
   * for an hour from then; AppError UPLOAD_QUOTA_EXCEEDED (413) when the stored uploads
   * leave no room for that many bytes (none at all when the quota is already full).
   */
  async admit(userId: string, fileBytesAtLeast: number): Promise<void> {
    const { isBlocked, timeToBlockExpire } = await this.counters.increment(
      `upload-rate:${userId}`,
      RATE_WINDOW_MS,
      this.ratePerHour,
      RATE_WINDOW_MS,
      'upload-rate',
    );
    if (isBlocked)
      throw new RateLimitedError(
        `At most ${this.ratePerHour} uploads an hour; try again later`,
        Math.max(1, timeToBlockExpire),
      );
    const used = await this.usedBytes(this.db.manager, userId);
    if (used + Math.max(1, fileBytesAtLeast) > this.quotaBytes) throw this.exceeded(used);
  }

  /**
   * Inside the caller's transaction `manager`, before it inserts an upload of `size` bytes for
   * `userId`: takes the user's upload lock (held until that transaction ends, so the next
   * recording of the same user sees this one) and throws AppError UPLOAD_QUOTA_EXCEEDED (413)
   * when the stored uploads plus `size` would pass UPLOAD_QUOTA_BYTES.
   */
  async reserve(manager: EntityManager, userId: string, size: number): Promise<void> {
    await manager.query(LOCK_USER_UPLOADS_SQL, [userId]);
    const used = await this.usedBytes(manager, userId);
    if (used + size > this.quotaBytes) throw this.exceeded(used);
  }

  /** Bytes of `userId`'s stored uploads (the sum of their recorded sizes). */
  async usedBytes(manager: EntityManager, userId: string): Promise<number> {
    const [{ used }] = await manager.query(USED_BYTES_SQL, [userId]);
    return Number(used);
  }

  private exceeded(usedBytes: number): AppError {
    return new AppError(
      UploadsErrorCode.UPLOAD_QUOTA_EXCEEDED,
      `This upload would take your stored uploads past your quota of ${this.quotaBytes} bytes ` +
        `(${usedBytes} used); delete some uploads to make room`,
      { quotaBytes: this.quotaBytes, usedBytes },
    );
  }
}
