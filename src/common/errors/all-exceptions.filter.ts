import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import type { Request, Response } from 'express';
import { AppError, codeForStatus, ErrorCode } from './app-error';
import { envelopeFor } from '../envelope/envelope';

interface ErrorBody {
  status: number;
  code: string;
  error: string;
  details?: Record<string, unknown>;
  headers?: Record<string, string>;
}

/**
 * The one place errors become HTTP answers. Every body has `error` (human message) and `code`;
 * envelope-B routes add `success: false`. Unknown errors are logged and answer a generic 500,
 * never a stack trace or SQL.
 */
@Catch()
export class AllExceptionsFilter implements ExceptionFilter {
  private readonly logger = new Logger('Errors');

  catch(exception: unknown, host: ArgumentsHost): void {
    const ctx = host.switchToHttp();
    const req = ctx.getRequest<Request>();
    const res = ctx.getResponse<Response>();
    const body = this.describe(exception, req);
    if (res.headersSent) {
      res.end();
      return;
    }
    for (const [k, v] of Object.entries(body.headers ?? {})) res.setHeader(k, v);
    const payload = { error: body.error, code: body.code, ...body.details };
    res
      .status(body.status)
      .json(envelopeFor(req.path) === 'B' ? { success: false, ...payload } : payload);
  }

  private describe(exception: unknown, req: Request): ErrorBody {
    if (exception instanceof AppError) {
      return { status: exception.status, code: exception.code, error: exception.message, details: exception.details };
    }
    if (exception instanceof HttpException) {
      const status = exception.getStatus();
      const response = exception.getResponse() as string | { message?: string | string[]; code?: string };
      const raw = typeof response === 'string' ? response : response.message;
      const error = Array.isArray(raw) ? raw.join('; ') : (raw ?? exception.message);
      const code = typeof response === 'object' && response.code ? response.code : codeForStatus(status);
      return { status, code, error };
    }
    const bodyParserError = exception as { type?: string; status?: number };
    if (bodyParserError?.type === 'entity.parse.failed') {
      return { status: 400, code: ErrorCode.MALFORMED_JSON, error: 'Malformed JSON in request body' };
    }
    if (bodyParserError?.type === 'entity.too.large') {
      return { status: 413, code: ErrorCode.PAYLOAD_TOO_LARGE, error: 'Request body is too large (limit 1 MB)' };
    }
    this.logger.error(
      { err: exception, method: req.method, path: req.path },
      exception instanceof Error ? exception.message : 'Unknown error',
    );
    return { status: 500, code: ErrorCode.INTERNAL_ERROR, error: 'Internal server error' };
  }
}
