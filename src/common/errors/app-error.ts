import { HttpStatus } from '@nestjs/common';

/** Stable machine-readable codes carried as `code` in every error body. */
export enum ErrorCode {
  VALIDATION_FAILED = 'VALIDATION_FAILED',
  MALFORMED_JSON = 'MALFORMED_JSON',
  PAYLOAD_TOO_LARGE = 'PAYLOAD_TOO_LARGE',
  UNAUTHORIZED = 'UNAUTHORIZED',
  INVALID_CREDENTIALS = 'INVALID_CREDENTIALS',
  FORBIDDEN = 'FORBIDDEN',
  NOT_FOUND = 'NOT_FOUND',
  EMAIL_TAKEN = 'EMAIL_TAKEN',
  CONFLICT = 'CONFLICT',
  RATE_LIMITED = 'RATE_LIMITED',
  UNKNOWN_MODEL = 'UNKNOWN_MODEL',
  /** Prices: the model has no price in force and no fallback price is set (never billed 0). */
  MODEL_NOT_PRICED = 'MODEL_NOT_PRICED',
  INSUFFICIENT_CREDITS = 'INSUFFICIENT_CREDITS',
  DAILY_LIMIT_REACHED = 'DAILY_LIMIT_REACHED',
  INVALID_API_KEY = 'INVALID_API_KEY',
  RATE_LIMIT = 'RATE_LIMIT',
  UNKNOWN_ERROR = 'UNKNOWN_ERROR',
  PAYMENTS_NOT_CONFIGURED = 'PAYMENTS_NOT_CONFIGURED',
  PAYMENT_FAILED = 'PAYMENT_FAILED',
  PAYMENT_PROVIDER_ERROR = 'PAYMENT_PROVIDER_ERROR',
  PAYMENT_REQUEST_INVALID = 'PAYMENT_REQUEST_INVALID',
  WEBHOOK_SIGNATURE_INVALID = 'WEBHOOK_SIGNATURE_INVALID',
  WEBHOOK_HANDLER_FAILED = 'WEBHOOK_HANDLER_FAILED',
  USER_NOT_FOUND = 'USER_NOT_FOUND',
  PROVIDER_ERROR = 'PROVIDER_ERROR',
  SERVICE_UNAVAILABLE = 'SERVICE_UNAVAILABLE',
  NOT_READY = 'NOT_READY',
  INTERNAL_ERROR = 'INTERNAL_ERROR',
  /** Teams: the change would leave a team without an OWNER. */
  LAST_OWNER = 'LAST_OWNER',
  /** Teams: the invited email already belongs to a member. */
  ALREADY_MEMBER = 'ALREADY_MEMBER',
  /** Teams: the session user's email is not the invitation's email. */
  INVITATION_EMAIL_MISMATCH = 'INVITATION_EMAIL_MISMATCH',
  /** Teams: the invitation expired, was revoked or was already used (`reason` says which). */
  INVITATION_GONE = 'INVITATION_GONE',
  /** Uploads: the file's bytes are not an allowed type, or not the type its name or part claims. */
  UNSUPPORTED_MEDIA_TYPE = 'UNSUPPORTED_MEDIA_TYPE',
  /** Two-factor: the TOTP or recovery code is wrong, already used, or of an old step. */
  TWO_FACTOR_CODE_INVALID = 'TWO_FACTOR_CODE_INVALID',
  /** Two-factor: the mfaToken of the second login step is missing, forged or expired. */
  MFA_TOKEN_INVALID = 'MFA_TOKEN_INVALID',
  /** Two-factor: setup while it is already on. */
  TWO_FACTOR_ALREADY_ENABLED = 'TWO_FACTOR_ALREADY_ENABLED',
  /** Two-factor: disable, new recovery codes or admin reset while it is off. */
  TWO_FACTOR_NOT_ENABLED = 'TWO_FACTOR_NOT_ENABLED',
  /** Two-factor: enable without a pending setup. */
  TWO_FACTOR_SETUP_REQUIRED = 'TWO_FACTOR_SETUP_REQUIRED',
  /** Password change on an account that has no password (social sign-in only). */
  PASSWORD_NOT_SET = 'PASSWORD_NOT_SET',
  /** A per-user limit (e.g. 100 tags) would be exceeded. */
  LIMIT_REACHED = 'LIMIT_REACHED',
  /** Tags: the caller already has a tag of that name (case-insensitively). */
  TAG_NAME_TAKEN = 'TAG_NAME_TAKEN',
  /** AI: a model parameter the model's provider does not accept (never silently dropped). */
  UNSUPPORTED_PARAMETER = 'UNSUPPORTED_PARAMETER',
  /** API keys: the route is outside the key's scopes (or never reachable with a key). */
  INSUFFICIENT_SCOPE = 'INSUFFICIENT_SCOPE',
  /** API keys: the key's own `dailyCreditLimit` is reached (with `dailyCreditLimit`, `usedToday`, `resetsAt`). */
  KEY_DAILY_LIMIT_REACHED = 'KEY_DAILY_LIMIT_REACHED',
  /** Tasks: the plan's number of scheduled tasks is reached (FREE 2, BASIC 10, PRO 50). */
  TASK_LIMIT_REACHED = 'TASK_LIMIT_REACHED',
  /** Tasks: two runs of the schedule are closer than the plan allows (60, 15, 5 minutes). */
  SCHEDULE_TOO_FREQUENT = 'SCHEDULE_TOO_FREQUENT',
  /** Search: `mode=semantic` while no embeddings model (EMBEDDINGS_MODEL) is configured or available. */
  SEMANTIC_SEARCH_UNAVAILABLE = 'SEMANTIC_SEARCH_UNAVAILABLE',
  /**
   * AI: images to a model without `vision`, plugins to one without `tools`, or a chat model to
   * `/v1/embeddings`.
   */
  MODEL_CAPABILITY_MISSING = 'MODEL_CAPABILITY_MISSING',
  /** Plugins: a name that is neither a built-in nor an enabled registered plugin. */
  UNKNOWN_PLUGIN = 'UNKNOWN_PLUGIN',
  /** Plugins: the MCP server did not connect or list its tools (registration, or a request's tools). */
  PLUGIN_UNREACHABLE = 'PLUGIN_UNREACHABLE',
  /** Plugins: the URL is not https, or its host is (or resolves to) a refused address (SSRF guard). */
  PLUGIN_URL_FORBIDDEN = 'PLUGIN_URL_FORBIDDEN',
  PLUGIN_NOT_ALLOWED = 'PLUGIN_NOT_ALLOWED',
  /** Uploads: the file would take the user's stored uploads past UPLOAD_QUOTA_BYTES (`quotaBytes`, `usedBytes`). */
  UPLOAD_QUOTA_EXCEEDED = 'UPLOAD_QUOTA_EXCEEDED',
  /**
   * The address is not proven: password login while REQUIRE_EMAIL_VERIFICATION=true, creating an
   * API key, asking to change the email.
   */
  EMAIL_NOT_VERIFIED = 'EMAIL_NOT_VERIFIED',
  /**
   * A mailed link's token (verification, password reset, email change) is unknown, used or
   * expired: one code and one message, so the answer tells nothing about which.
   */
  INVALID_TOKEN = 'INVALID_TOKEN',
  /** 429: the account asked for EMAIL_CHANGE_PER_DAY email changes in the last 24 hours. */
  EMAIL_CHANGE_LIMIT_REACHED = 'EMAIL_CHANGE_LIMIT_REACHED',
  /** `/v1/models/{model}`: no available model of that id (OpenAI's `model_not_found`). */
  MODEL_NOT_FOUND = 'MODEL_NOT_FOUND',
  /**
   * `/v1/responses`: `previous_response_id` names no stored response of the caller (unknown,
   * not stored, or another user's; OpenAI's `previous_response_not_found`).
   */
  PREVIOUS_RESPONSE_NOT_FOUND = 'PREVIOUS_RESPONSE_NOT_FOUND',
  /** Upstreams: an upstream built from the environment (`env:<provider>`) cannot be changed or deleted. */
  UPSTREAM_READ_ONLY = 'UPSTREAM_READ_ONLY',
  /**
   * Upstreams: `baseUrl` reaches an address class UPSTREAM_ALLOW_PRIVATE does not allow
   * (link-local, cloud metadata, …; `details.addressClass`).
   */
  UPSTREAM_URL_FORBIDDEN = 'UPSTREAM_URL_FORBIDDEN',
  /** Upstreams: moving a keyed upstream's `baseUrl` to another origin without `apiKey` beside it. */
  UPSTREAM_KEY_REQUIRED = 'UPSTREAM_KEY_REQUIRED',
  /**
   * AI: no upstream of the model gave an HTTP answer (connection refused, reset or timed out),
   * after every upstream and retry was tried.
   */
  UPSTREAM_UNREACHABLE = 'UPSTREAM_UNREACHABLE',
  /**
   * Budgets: a budget window of the call's key, member, team or user would be exceeded
   * (`scope`, `scopeId`, `window`, `limit`, `used`, `held`, `resetsAt`): 429 with Retry-After
   * for a window that resets, 402 for a `total` window.
   */
  BUDGET_EXCEEDED = 'BUDGET_EXCEEDED',
}

/** The one exhaustive mapping from code to HTTP status (a new code cannot go unmapped). */
export const ERROR_STATUS: Record<ErrorCode, HttpStatus> = {
  VALIDATION_FAILED: HttpStatus.BAD_REQUEST,
  MALFORMED_JSON: HttpStatus.BAD_REQUEST,
  PAYLOAD_TOO_LARGE: HttpStatus.PAYLOAD_TOO_LARGE,
  UNAUTHORIZED: HttpStatus.UNAUTHORIZED,
  INVALID_CREDENTIALS: HttpStatus.UNAUTHORIZED,
  FORBIDDEN: HttpStatus.FORBIDDEN,
  NOT_FOUND: HttpStatus.NOT_FOUND,
  EMAIL_TAKEN: HttpStatus.CONFLICT,
  CONFLICT: HttpStatus.CONFLICT,
  RATE_LIMITED: HttpStatus.TOO_MANY_REQUESTS,
  UNKNOWN_MODEL: HttpStatus.BAD_REQUEST,
  MODEL_NOT_PRICED: HttpStatus.BAD_REQUEST,
  INSUFFICIENT_CREDITS: HttpStatus.PAYMENT_REQUIRED,
  DAILY_LIMIT_REACHED: HttpStatus.TOO_MANY_REQUESTS,
  // Upstream model errors, classified as spec "AI error classification".
  INVALID_API_KEY: HttpStatus.UNAUTHORIZED,
  RATE_LIMIT: HttpStatus.TOO_MANY_REQUESTS,
  UNKNOWN_ERROR: HttpStatus.INTERNAL_SERVER_ERROR,
  PAYMENTS_NOT_CONFIGURED: HttpStatus.SERVICE_UNAVAILABLE,
  PAYMENT_FAILED: HttpStatus.PAYMENT_REQUIRED,
  PAYMENT_PROVIDER_ERROR: HttpStatus.BAD_GATEWAY,
  // The processor refused the request's parameters (e.g. an unknown payment intent).
  PAYMENT_REQUEST_INVALID: HttpStatus.BAD_REQUEST,
  WEBHOOK_SIGNATURE_INVALID: HttpStatus.BAD_REQUEST,
  // Any non-2xx makes the processor retry the delivery.
  WEBHOOK_HANDLER_FAILED: HttpStatus.INTERNAL_SERVER_ERROR,
  USER_NOT_FOUND: HttpStatus.NOT_FOUND,
  PROVIDER_ERROR: HttpStatus.INTERNAL_SERVER_ERROR,
  // A dependency (the database) is down; the AI classification of an upstream 500 overrides
  // this with the spec's 500.
  SERVICE_UNAVAILABLE: HttpStatus.SERVICE_UNAVAILABLE,
  NOT_READY: HttpStatus.SERVICE_UNAVAILABLE,
  INTERNAL_ERROR: HttpStatus.INTERNAL_SERVER_ERROR,
  LAST_OWNER: HttpStatus.CONFLICT,
  ALREADY_MEMBER: HttpStatus.CONFLICT,
  INVITATION_EMAIL_MISMATCH: HttpStatus.FORBIDDEN,
  INVITATION_GONE: HttpStatus.GONE,
  UNSUPPORTED_MEDIA_TYPE: HttpStatus.UNSUPPORTED_MEDIA_TYPE,
  TWO_FACTOR_CODE_INVALID: HttpStatus.UNAUTHORIZED,
  MFA_TOKEN_INVALID: HttpStatus.UNAUTHORIZED,
  TWO_FACTOR_ALREADY_ENABLED: HttpStatus.CONFLICT,
  TWO_FACTOR_NOT_ENABLED: HttpStatus.CONFLICT,
  TWO_FACTOR_SETUP_REQUIRED: HttpStatus.CONFLICT,
  PASSWORD_NOT_SET: HttpStatus.CONFLICT,
  LIMIT_REACHED: HttpStatus.CONFLICT,
  TAG_NAME_TAKEN: HttpStatus.CONFLICT,
  UNSUPPORTED_PARAMETER: HttpStatus.BAD_REQUEST,
  INSUFFICIENT_SCOPE: HttpStatus.FORBIDDEN,
  KEY_DAILY_LIMIT_REACHED: HttpStatus.TOO_MANY_REQUESTS,
  TASK_LIMIT_REACHED: HttpStatus.CONFLICT,
  SCHEDULE_TOO_FREQUENT: HttpStatus.BAD_REQUEST,
  SEMANTIC_SEARCH_UNAVAILABLE: HttpStatus.BAD_REQUEST,
  MODEL_CAPABILITY_MISSING: HttpStatus.BAD_REQUEST,
  UNKNOWN_PLUGIN: HttpStatus.BAD_REQUEST,
  // The request was well-formed; the server it names does not work.
  PLUGIN_UNREACHABLE: HttpStatus.UNPROCESSABLE_ENTITY,
  PLUGIN_URL_FORBIDDEN: HttpStatus.BAD_REQUEST,
  // A tool that reads the caller's private data, asked for where others would read its output.
  PLUGIN_NOT_ALLOWED: HttpStatus.FORBIDDEN,
  UPLOAD_QUOTA_EXCEEDED: HttpStatus.PAYLOAD_TOO_LARGE,
  EMAIL_NOT_VERIFIED: HttpStatus.FORBIDDEN,
  INVALID_TOKEN: HttpStatus.BAD_REQUEST,
  EMAIL_CHANGE_LIMIT_REACHED: HttpStatus.TOO_MANY_REQUESTS,
  MODEL_NOT_FOUND: HttpStatus.NOT_FOUND,
  PREVIOUS_RESPONSE_NOT_FOUND: HttpStatus.BAD_REQUEST,
  UPSTREAM_READ_ONLY: HttpStatus.CONFLICT,
  UPSTREAM_URL_FORBIDDEN: HttpStatus.BAD_REQUEST,
  UPSTREAM_KEY_REQUIRED: HttpStatus.BAD_REQUEST,
  UPSTREAM_UNREACHABLE: HttpStatus.BAD_GATEWAY,
  // A window that resets; a `total` window answers 402 (status override).
  BUDGET_EXCEEDED: HttpStatus.TOO_MANY_REQUESTS,
};

/** A domain error: services throw it, the global filter maps `code` to a status and body. */
export class AppError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    /** Extra fields merged into the error body, e.g. `{required, balance}`. */
    readonly details?: Record<string, unknown>,
    /** Only where the spec fixes another status for a code (AI classification: 500). */
    private readonly statusOverride?: HttpStatus,
  ) {
    super(message);
    this.name = 'AppError';
  }

  get status(): HttpStatus {
    return this.statusOverride ?? ERROR_STATUS[this.code];
  }
}

/** 429 RATE_LIMITED whose answer carries `Retry-After: <retryAfterSeconds>` (set by the filter). */
export class RateLimitedError extends AppError {
  constructor(
    message: string,
    /** Whole seconds until a new attempt is counted (at least 1). */
    readonly retryAfterSeconds: number,
  ) {
    super(ErrorCode.RATE_LIMITED, message);
  }
}

/** Maps a bare HTTP status (from Nest, body-parser or throttler) to a code. */
export function codeForStatus(status: number): ErrorCode {
  switch (status) {
    case 400:
      return ErrorCode.VALIDATION_FAILED;
    case 401:
      return ErrorCode.UNAUTHORIZED;
    case 403:
      return ErrorCode.FORBIDDEN;
    case 404:
      return ErrorCode.NOT_FOUND;
    case 409:
      return ErrorCode.CONFLICT;
    case 413:
      return ErrorCode.PAYLOAD_TOO_LARGE;
    case 415:
      return ErrorCode.UNSUPPORTED_MEDIA_TYPE;
    case 429:
      return ErrorCode.RATE_LIMITED;
    case 503:
      return ErrorCode.NOT_READY;
    default:
      return ErrorCode.INTERNAL_ERROR;
  }
}
