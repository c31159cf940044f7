import {
  CallHandler,
  ExecutionContext,
  Inject,
  Injectable,
  NestInterceptor,
  PayloadTooLargeException,
} from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { uploadsConfig } from './uploads.config';
import type { Request } from 'express';
import { catchError, Observable, throwError } from 'rxjs';
import type { SessionUser } from '../common/auth/session-user';
import { AppError, CommonErrorCode } from '../common/errors/app-error';
import { UploadQuota } from './upload-quota.service';

/** Room for the multipart framing and the few small fields multer accepts (bytes). */
export const MULTIPART_OVERHEAD_BYTES = 64 * 1024;

/**
 * Enforces the upload limits around multer's FileInterceptor, before a byte of the body is read
 * (so a refused upload writes nothing):
 * - UPLOAD_MAX_BYTES: AppError PAYLOAD_TOO_LARGE (413) `{error, code, limitBytes}` when the
 *   declared Content-Length exceeds the limit plus MULTIPART_OVERHEAD_BYTES, and while
 *   streaming when multer reports the file passed the limit (its bare "File too large"; the
 *   engine has removed the partial file by then);
 * - the caller's UPLOAD_RATE_PER_HOUR (429) and UPLOAD_QUOTA_BYTES (413 UPLOAD_QUOTA_EXCEEDED),
 *   see UploadQuota.admit; the file's exact size is checked again when it is recorded.
 */
@Injectable()
export class UploadLimitInterceptor implements NestInterceptor {
  private readonly maxBytes: number;

  constructor(
    @Inject(uploadsConfig.KEY) uploads: ConfigType<typeof uploadsConfig>,
    private readonly quota: UploadQuota,
  ) {
    this.maxBytes = uploads.maxBytes;
  }

  async intercept(context: ExecutionContext, next: CallHandler): Promise<Observable<unknown>> {
    const req = context.switchToHttp().getRequest<Request & { user?: SessionUser }>();
    const declared = Number(req.headers['content-length']);
    if (declared > this.maxBytes + MULTIPART_OVERHEAD_BYTES) throw this.tooLarge();
    // The route requires a session, so the guard has set `user`. The file is at least the body
    // less what the framing and the few small fields can take.
    if (req.user)
      await this.quota.admit(
        req.user.id,
        Number.isFinite(declared) ? declared - MULTIPART_OVERHEAD_BYTES : 0,
      );
    return next
      .handle()
      .pipe(
        catchError((e: unknown) =>
          throwError(() => (e instanceof PayloadTooLargeException ? this.tooLarge() : e)),
        ),
      );
  }

  private tooLarge(): AppError {
    return new AppError(
      CommonErrorCode.PAYLOAD_TOO_LARGE,
      `File is larger than the limit of ${this.maxBytes} bytes`,
      { limitBytes: this.maxBytes },
    );
  }
}
