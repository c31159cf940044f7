import { ArgumentsHost, Catch, ExceptionFilter } from '@nestjs/common';
import type { Request, Response } from 'express';
import { envelopeFor } from '../envelope/envelope';
import { AppError, ErrorCode, RateLimitedError } from './app-error';
import { ErrorPresenter } from './error-presenter';

/**
 * Express error middleware placed after the body parsers: turns their errors into AppErrors
 * (Nest would otherwise reduce them to a bare 400 or 500).
 */
export function bodyParserErrors(
  err: unknown,
  _req: Request,
  _res: Response,
  next: (e: unknown) => void,
): void {
  const { type, status } = (err ?? {}) as { type?: string; status?: number };
  if (type === 'entity.parse.failed')
    return next(new AppError(ErrorCode.MALFORMED_JSON, 'Malformed JSON in request body'));
  if (type === 'entity.too.large')
    return next(
      new AppError(ErrorCode.PAYLOAD_TOO_LARGE, 'Request body is too large (limit 1 MB)'),
    );
  // Other parser refusals, typed or not (a `Content-Encoding: gzip` body that is not gzip
  // fails inside zlib and reaches us as an untyped 400).
  if (typeof type === 'string' || (typeof status === 'number' && status >= 400 && status < 500))
    return next(new AppError(ErrorCode.VALIDATION_FAILED, 'Request body could not be read'));
  next(err);
}

/**
 * The one place errors become HTTP answers (through ErrorPresenter). Every body has `error`
 * (human message, translated) and `code`; envelope-B routes add `success: false`.
 */
@Catch()
export class AllExceptionsFilter implements ExceptionFilter {
  constructor(private readonly presenter: ErrorPresenter) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const ctx = host.switchToHttp();
    const req = ctx.getRequest<Request>();
    const res = ctx.getResponse<Response>();
    const body = this.presenter.present(exception, req);
    if (res.headersSent) {
      res.end();
      return;
    }
    if (exception instanceof RateLimitedError)
      res.setHeader('Retry-After', String(exception.retryAfterSeconds));
    const payload = { error: body.error, code: body.code, ...body.details };
    res
      .status(body.status)
      .json(envelopeFor(req.path) === 'B' ? { success: false, ...payload } : payload);
  }
}
