import { HttpStatus } from '@nestjs/common';
import type { ErrorTable } from './error-table';

/**
 * The generic codes: those of a bare HTTP status (`codeForStatus`), of the body parsers, guards
 * and pipes in common, and those several unrelated modules raise alike. A code one module raises
 * (or that modules raise about one module's rules) lives in that module's `<module>.errors.ts`;
 * src/app-errors.ts assembles them all.
 */
export enum CommonErrorCode {
  /** Input that fails validation, or a body the parsers could not read. */
  VALIDATION_FAILED = 'VALIDATION_FAILED',
  /** A JSON body that does not parse. */
  MALFORMED_JSON = 'MALFORMED_JSON',
  /** A body over 1 MB, or an upload over its limit (`limitBytes`). */
  PAYLOAD_TOO_LARGE = 'PAYLOAD_TOO_LARGE',
  /** No valid session or API key. */
  UNAUTHORIZED = 'UNAUTHORIZED',
  /** The caller's role or rights do not allow it. */
  FORBIDDEN = 'FORBIDDEN',
  /** Not found, or not the caller's. */
  NOT_FOUND = 'NOT_FOUND',
  /** The request conflicts with the current state. */
  CONFLICT = 'CONFLICT',
  /** Too many attempts; the answer carries Retry-After. */
  RATE_LIMITED = 'RATE_LIMITED',
  /** An API key that is revoked, expired or unknown; or the model provider rejected ours. */
  INVALID_API_KEY = 'INVALID_API_KEY',
  /** A dependency (the database) cannot be reached. */
  SERVICE_UNAVAILABLE = 'SERVICE_UNAVAILABLE',
  /** The service is starting or stopping, or a health indicator is down. */
  NOT_READY = 'NOT_READY',
  /** An unexpected failure: logged, answered with a generic message. */
  INTERNAL_ERROR = 'INTERNAL_ERROR',
  /** Content of a type that is not allowed, or not the type its name or part claims (`allowedTypes`). */
  UNSUPPORTED_MEDIA_TYPE = 'UNSUPPORTED_MEDIA_TYPE',
  /** A per-user limit (e.g. 100 tags, or the API keys a user may hold) would be exceeded. */
  LIMIT_REACHED = 'LIMIT_REACHED',
  /** API keys: the route is outside the key's scopes (or never reachable with a key). */
  INSUFFICIENT_SCOPE = 'INSUFFICIENT_SCOPE',
}

/** The generic codes' statuses. */
export const COMMON_ERRORS: ErrorTable<CommonErrorCode> = {
  VALIDATION_FAILED: { status: HttpStatus.BAD_REQUEST },
  MALFORMED_JSON: { status: HttpStatus.BAD_REQUEST },
  PAYLOAD_TOO_LARGE: { status: HttpStatus.PAYLOAD_TOO_LARGE },
  UNAUTHORIZED: { status: HttpStatus.UNAUTHORIZED },
  FORBIDDEN: { status: HttpStatus.FORBIDDEN },
  NOT_FOUND: { status: HttpStatus.NOT_FOUND },
  CONFLICT: { status: HttpStatus.CONFLICT },
  RATE_LIMITED: { status: HttpStatus.TOO_MANY_REQUESTS },
  // An upstream model's 401 is classified as this too (spec "AI error classification").
  INVALID_API_KEY: { status: HttpStatus.UNAUTHORIZED },
  // A dependency (the database) is down; the AI classification of an upstream 500 overrides
  // this with the spec's 500.
  SERVICE_UNAVAILABLE: { status: HttpStatus.SERVICE_UNAVAILABLE },
  NOT_READY: { status: HttpStatus.SERVICE_UNAVAILABLE },
  INTERNAL_ERROR: { status: HttpStatus.INTERNAL_SERVER_ERROR },
  UNSUPPORTED_MEDIA_TYPE: { status: HttpStatus.UNSUPPORTED_MEDIA_TYPE },
  LIMIT_REACHED: { status: HttpStatus.CONFLICT },
  INSUFFICIENT_SCOPE: { status: HttpStatus.FORBIDDEN },
};

/**
 * Filled in by src/app-errors.ts (declaration merging) with `codes`: the union of every module's
 * code enum. Common names no feature, yet AppError accepts only a code some table defines.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface ErrorCodeRegistry {}

/** Every code of the application (src/app-errors.ts); any string until it is registered. */
export type ErrorCode = ErrorCodeRegistry extends { codes: infer C extends string } ? C : string;

/**
 * A domain error: services throw it, the global filter answers it with the status the error
 * table gives `code` (ErrorCatalogue) and `{error, code, ...details}`.
 */
export class AppError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    /** Extra fields merged into the error body, e.g. `{required, balance}`. */
    readonly details?: Record<string, unknown>,
    /** Only where the spec fixes another status for a code (AI classification: 500). */
    readonly statusOverride?: HttpStatus,
  ) {
    super(message);
    this.name = 'AppError';
  }
}

/** 429 RATE_LIMITED whose answer carries `Retry-After: <retryAfterSeconds>` (set by the filter). */
export class RateLimitedError extends AppError {
  constructor(
    message: string,
    /** Whole seconds until a new attempt is counted (at least 1). */
    readonly retryAfterSeconds: number,
  ) {
    super(CommonErrorCode.RATE_LIMITED, message);
  }
}

/** Maps a bare HTTP status (from Nest, body-parser or throttler) to a code. */
export function codeForStatus(status: number): CommonErrorCode {
  switch (status) {
    case 400:
      return CommonErrorCode.VALIDATION_FAILED;
    case 401:
      return CommonErrorCode.UNAUTHORIZED;
    case 403:
      return CommonErrorCode.FORBIDDEN;
    case 404:
      return CommonErrorCode.NOT_FOUND;
    case 409:
      return CommonErrorCode.CONFLICT;
    case 413:
      return CommonErrorCode.PAYLOAD_TOO_LARGE;
    case 415:
      return CommonErrorCode.UNSUPPORTED_MEDIA_TYPE;
    case 429:
      return CommonErrorCode.RATE_LIMITED;
    case 503:
      return CommonErrorCode.NOT_READY;
    default:
      return CommonErrorCode.INTERNAL_ERROR;
  }
}
