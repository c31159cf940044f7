import { HttpException, Injectable, Logger } from '@nestjs/common';
import type { Request } from 'express';
import { I18nService } from 'nestjs-i18n';
import { type Locale, resolveLocale } from '../../i18n/locale';
import { ValidationFailedError } from '../validation/validation.pipe';
import { AppError, codeForStatus, CommonErrorCode } from './app-error';
import { isDatabaseUnavailable } from './database-unavailable';
import { ErrorCatalogue } from './error-table';

/** An error as the API answers it: HTTP status and `{error, code, ...details}`. */
export interface PresentedError {
  status: number;
  code: string;
  error: string;
  details?: Record<string, unknown>;
}

type ErrorBody = PresentedError;

/**
 * Turns any failure into its status, code and message in the request's language: an AppError's
 * status is its code's in the application's error table (ErrorCatalogue). Shared by
 * the HTTP error filter and the SSE `error` event, so both say the same thing. A database
 * that cannot be reached (connection refused or lost, server shutting down) is 503
 * SERVICE_UNAVAILABLE; other unknown errors are logged and become a generic 500, never a
 * stack trace or SQL.
 */
@Injectable()
export class ErrorPresenter {
  private readonly logger = new Logger('Errors');

  constructor(
    private readonly i18n: I18nService,
    private readonly catalogue: ErrorCatalogue,
  ) {}

  present(exception: unknown, req: Request): PresentedError {
    const body = this.describe(exception, req);
    const lang = resolveLocale(req);
    body.error = this.localize(body, exception, lang);
    // A `hint` detail given as {key, args} names a message of namespace `hints`: translated too.
    const hint = body.details?.hint as { key?: string; args?: Record<string, unknown> } | undefined;
    if (hint?.key) {
      const text = this.i18n.t(`hints.${hint.key}`, { lang, args: hint.args, defaultValue: '' });
      body.details = { ...body.details, hint: (text as string) || hint.key };
    }
    return body;
  }

  /**
   * The message in the request's language: English messages stay as written (they are the most
   * specific); Chinese comes from `errors.<code>`, or per violation from `validation.<rule>`.
   * Unexpected failures use `API.error` in both (spec "Localized API example").
   */
  private localize(body: ErrorBody, exception: unknown, lang: Locale): string {
    const t = (key: string, args?: Record<string, unknown>) =>
      this.i18n.t(key, { lang, args, defaultValue: '' }) as string;
    if (body.code === CommonErrorCode.INTERNAL_ERROR) return t('API.error') || body.error;
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
        status: exception.statusOverride ?? this.catalogue.status(exception.code),
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
        code: CommonErrorCode.SERVICE_UNAVAILABLE,
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
    return { status: 500, code: CommonErrorCode.INTERNAL_ERROR, error: 'Internal server error' };
  }
}
