import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import type { Request, Response } from 'express';
import { AppError, codeForStatus, ErrorCode } from './app-error';
import { isDatabaseUnavailable } from './database-unavailable';
import { I18nService } from 'nestjs-i18n';
import { type Locale, resolveLocale } from '../../i18n/locale';
import { envelopeFor } from '../envelope/envelope';
import { ValidationFailedError } from '../validation/validation.pipe';

interface ErrorBody {
  status: number;
  code: string;
  error: string;
  details?: Record<string, unknown>;
}

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
 * The one place errors become HTTP answers. Every body has `error` (human message) and `code`;
 * envelope-B routes add `success: false`. A database that cannot be reached (connection
 * refused or lost, server shutting down) answers 503 SERVICE_UNAVAILABLE. Other unknown errors
 * are logged and answer a generic 500, never a stack trace or SQL.
 */
@Catch()
export class AllExceptionsFilter implements ExceptionFilter {
  private readonly logger = new Logger('Errors');

  constructor(private readonly i18n: I18nService) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const ctx = host.switchToHttp();
    const req = ctx.getRequest<Request>();
    const res = ctx.getResponse<Response>();
    const body = this.describe(exception, req);
    body.error = this.localize(body, exception, resolveLocale(req));
    if (res.headersSent) {
      res.end();
      return;
    }
    const payload = { error: body.error, code: body.code, ...body.details };
    res
      .status(body.status)
      .json(envelopeFor(req.path) === 'B' ? { success: false, ...payload } : payload);
  }

  /**
   * The message in the request's language: English messages stay as written (they are the most
   * specific); Chinese comes from `errors.<code>`, or per violation from `validation.<rule>`.
   * Unexpected failures use `API.error` in both (spec "Localized API example").
   */
  private localize(body: ErrorBody, exception: unknown, lang: Locale): string {
    const t = (key: string, args?: Record<string, unknown>) =>
      this.i18n.t(key, { lang, args, defaultValue: '' }) as string;
    if (body.code === ErrorCode.INTERNAL_ERROR) return t('API.error') || body.error;
    if (lang === 'en') return body.error;
    if (exception instanceof ValidationFailedError && exception.violations.length) {
      return exception.violations
        .map(
          (v) =>
            t(`validation.${v.constraint}`, { property: v.property }) ||
            t('validation.default', { property: v.property }),
        )
        .join('; ');
    }
    return t(`errors.${body.code}`) || body.error;
  }

  private describe(exception: unknown, req: Request): ErrorBody {
    if (exception instanceof AppError) {
      return {
        status: exception.status,
        code: exception.code,
        error: exception.message,
        details: exception.details,
      };
    }
    if (exception instanceof HttpException) {
      const status = exception.getStatus();
      const response = exception.getResponse() as
        string | { message?: string | string[]; code?: string };
      const raw = typeof response === 'string' ? response : response.message;
      const error = Array.isArray(raw) ? raw.join('; ') : (raw ?? exception.message);
      const code =
        typeof response === 'object' && response.code ? response.code : codeForStatus(status);
      return { status, code, error };
    }
    // Only name, message and stack: a QueryFailedError also carries the query's parameters.
    const err = exception instanceof Error ? exception : new Error(String(exception));
    if (isDatabaseUnavailable(exception)) {
      // PostgreSQL is down or restarting: a retryable 503, not a bug. The pool reconnects by
      // itself once the server is back.
      this.logger.warn(
        { err: { name: err.name, message: err.message }, method: req.method, path: req.path },
        'Database unavailable',
      );
      return {
        status: 503,
        code: ErrorCode.SERVICE_UNAVAILABLE,
        error: 'The service is temporarily unavailable; try again shortly',
      };
    }
    this.logger.error(
      {
        err: { name: err.name, message: err.message, stack: err.stack },
        method: req.method,
        path: req.path,
      },
      err.message,
    );
    return { status: 500, code: ErrorCode.INTERNAL_ERROR, error: 'Internal server error' };
  }
}
