import { Inject, Injectable } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { uploadsConfig } from './uploads.config';
import { ThrottlerStorage } from '@nestjs/throttler';
import { ChatAttachments } from '../chats/chat-attachments.service';
import type { SessionUser } from '../common/auth/session-user';
import { RateLimitedError } from '../common/errors/app-error';
import type { Upload } from './upload.entity';
import { UploadLinks } from './upload-links';
import { type OpenedUpload, uploadNotFound, UploadsService } from './uploads.service';

/** Who asks for a download (GET /uploads/{filename}). */
export interface DownloadRequest {
  /** The session user when the request carried a valid session (bearer or cookie). */
  user?: SessionUser;
  /** The `exp` and `sig` query values as received (strings, arrays or absent). */
  exp?: unknown;
  sig?: unknown;
  /** Client IP (`req.ip`, the forwarded one with TRUST_PROXY): misses are counted per IP. */
  ip: string;
}

/** Misses are counted per minute. */
const MISS_WINDOW_MS = 60_000;

/**
 * Who may download an upload (the spec leaves `/uploads/{filename}` open):
 * its owner, a reader of a chat whose messages attach it (ChatAttachments), or anyone with a
 * valid signed link (UploadLinks). Everyone else gets the 404 of an unknown name, and each
 * such miss is counted per client IP in the rate limits' storage (Redis with REDIS_URL): past
 * UPLOAD_MISS_LIMIT_PER_MINUTE the misses answer 429 RATE_LIMITED with Retry-After, so names
 * cannot be probed at speed. Successful downloads are neither counted nor refused.
 */
@Injectable()
export class UploadDownloads {
  private readonly missLimit: number;

  constructor(
    private readonly uploads: UploadsService,
    private readonly links: UploadLinks,
    private readonly attachments: ChatAttachments,
    @Inject(ThrottlerStorage) private readonly counters: ThrottlerStorage,
    @Inject(uploadsConfig.KEY) settings: ConfigType<typeof uploadsConfig>,
  ) {
    this.missLimit = settings.missLimitPerMinute;
  }

  /**
   * The upload named `filename` (as decoded from the path) and its bytes, when `req` may read
   * it. Otherwise NOT_FOUND (404), or RATE_LIMITED (429) once the IP has missed too often.
   */
  async open(filename: string, req: DownloadRequest): Promise<OpenedUpload> {
    const upload = await this.uploads.find(filename);
    if (!upload || !(await this.mayRead(upload, req))) return this.miss(req.ip);
    return this.uploads.openBytes(upload);
  }

  // Cheapest first: the link needs no query, the owner none more, the chats one.
  private async mayRead(upload: Upload, { user, exp, sig }: DownloadRequest): Promise<boolean> {
    if (this.links.verify(upload.filename, exp, sig)) return true;
    if (!user) return false;
    if (user.id === upload.userId) return true;
    return this.attachments.readableThroughChat(user.id, upload.id);
  }

  /** Counts a miss of `ip`; throws 429 past the limit, else the 404 of an unknown name. */
  private async miss(ip: string): Promise<never> {
    const { isBlocked, timeToBlockExpire } = await this.counters.increment(
      `upload-miss:${ip}`,
      MISS_WINDOW_MS,
      this.missLimit,
      MISS_WINDOW_MS,
      'upload-miss',
    );
    if (isBlocked)
      throw new RateLimitedError(
        'Too many requests for unknown files; try again later',
        Math.max(1, timeToBlockExpire),
      );
    throw uploadNotFound();
  }
}
