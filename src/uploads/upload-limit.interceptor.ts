import {
  CallHandler,
  ExecutionContext,
  Injectable,
  NestInterceptor,
  PayloadTooLargeException,
} from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { Request } from 'express';
import { catchError, Observable, throwError } from 'rxjs';
import { AppError, ErrorCode } from '../common/errors/app-error';
import type { AppConfig } from '../config/app.config';

/** Room for the multipart framing and the few small fields multer accepts (bytes). */
export const MULTIPART_OVERHEAD_BYTES = 64 * 1024;

/**
 * Enforces UPLOAD_MAX_BYTES around multer's FileInterceptor, answering AppError
 * PAYLOAD_TOO_LARGE (413) `{error, code, limitBytes}`:
 * - before reading the body, when its declared Content-Length exceeds the limit plus
 *   MULTIPART_OVERHEAD_BYTES (nothing is written);
 * - while streaming, when multer reports the file passed the limit (its bare "File too large";
 *   the engine has removed the partial file by then).
 */
@Injectable()
export class UploadLimitInterceptor implements NestInterceptor {
  private readonly maxBytes: number;

  constructor(config: ConfigService<AppConfig, true>) {
    this.maxBytes = config.get('uploads', { infer: true }).maxBytes;
  }

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const declared = Number(context.switchToHttp().getRequest<Request>().headers['content-length']);
    if (declared > this.maxBytes + MULTIPART_OVERHEAD_BYTES) throw this.tooLarge();
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
      ErrorCode.PAYLOAD_TOO_LARGE,
      `File is larger than the limit of ${this.maxBytes} bytes`,
      { limitBytes: this.maxBytes },
    );
  }
}
