import { ArgumentsHost, Catch, ExceptionFilter } from '@nestjs/common';
import type { Request, Response } from 'express';
import { Clock } from '../clock/clock';
import { envelopeFor } from '../envelope/envelope';
import { ValidationFailedError } from '../validation/validation.pipe';
import { AppError, CommonErrorCode, RateLimitedError } from './app-error';
import { ErrorPresenter, type PresentedError } from './error-presenter';
import { WireErrorFormats } from './wire-error-formats';

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
    return next(new AppError(CommonErrorCode.MALFORMED_JSON, 'Malformed JSON in request body'));
  if (type === 'entity.too.large')
    return next(
      new AppError(CommonErrorCode.PAYLOAD_TOO_LARGE, 'Request body is too large (limit 1 MB)'),
    );
  // Other parser refusals, typed or not (a `Content-Encoding: gzip` body that is not gzip
  // fails inside zlib and reaches us as an untyped 400).
  if (typeof type === 'string' || (typeof status === 'number' && status >= 400 && status < 500))
    return next(new AppError(CommonErrorCode.VALIDATION_FAILED, 'Request body could not be read'));
  next(err);
}

/**
 * The one place errors become HTTP answers (through ErrorPresenter). Every body has `error`
 * (human message, translated) and `code`; envelope-B routes add `success: false`; a path a
 * module registered a wire format for answers in that format (the gateway's: OpenAI's shape
 * under `/v1`, Anthropic's under `/v1/messages`). A 429 says when to retry (`Retry-After`,
 * seconds): the rate limiter's window, or the daily limit's reset.
 */
@Catch()
export class AllExceptionsFilter implements ExceptionFilter {
  constructor(
    private readonly presenter: ErrorPresenter,
    private readonly clock: Clock,
    private readonly formats: WireErrorFormats,
  ) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const ctx = host.switchToHttp();
    const req = ctx.getRequest<Request>();
    const res = ctx.getResponse<Response>();
    const body = this.presenter.present(exception, req);
    if (res.headersSent) {
      res.end();
      return;
    }
    const retryAfter = this.retryAfter(exception, body);
    if (retryAfter !== undefined) res.setHeader('Retry-After', String(retryAfter));
    const format = this.formats.for(req.path);
    if (format) {
      res.status(body.status).json(format.body(body, paramOf(exception)));
      return;
    }
    const envelope = envelopeFor(req.path);
    const payload = { error: body.error, code: body.code, ...body.details };
    res.status(body.status).json(envelope === 'B' ? { success: false, ...payload } : payload);
  }

  private retryAfter(exception: unknown, body: PresentedError): number | undefined {
    if (exception instanceof RateLimitedError) return exception.retryAfterSeconds;
    const resetsAt = body.details?.resetsAt;
    if (body.status !== 429 || typeof resetsAt !== 'string') return undefined;
    return Math.max(1, Math.ceil((Date.parse(resetsAt) - this.clock.now().getTime()) / 1000));
  }
}

/** The request field an error is about, for OpenAI's `param`. */
function paramOf(exception: unknown): string | null {
  if (exception instanceof ValidationFailedError) return exception.violations[0]?.property ?? null;
  if (exception instanceof AppError && typeof exception.details?.param === 'string')
    return exception.details.param;
  return null;
}
