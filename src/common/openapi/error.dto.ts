import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ErrorCode } from '../errors/app-error';

/**
 * Every error body (envelopes A and C): `error` (message in the request's language) and `code`.
 * Some codes add the optional fields below (AppError `details`).
 */
export class ErrorDto {
  @ApiProperty({ example: 'Authentication required' }) error: string;
  @ApiProperty({ enum: ErrorCode, enumName: 'ErrorCode', example: ErrorCode.UNAUTHORIZED })
  code: ErrorCode;
  @ApiPropertyOptional({ type: 'integer', description: 'INSUFFICIENT_CREDITS: credits needed' })
  required?: number;
  @ApiPropertyOptional({ type: 'integer', description: 'INSUFFICIENT_CREDITS: the balance' })
  balance?: number;
  @ApiPropertyOptional({
    type: 'integer',
    description:
      'INSUFFICIENT_CREDITS: credits owed from earlier replies whose usage exceeded hold and balance (part of `required`)',
  })
  shortfall?: number;
  @ApiPropertyOptional({
    format: 'uuid',
    description:
      "INSUFFICIENT_CREDITS: the team whose pool was short (a call in the team's context; `balance` is the pool's); BUDGET_EXCEEDED: the team (member and team scopes)",
  })
  teamId?: string;
  @ApiPropertyOptional({
    description:
      'INSUFFICIENT_CREDITS: what would help, e.g. that verifying the email grants the sign-up credits',
  })
  hint?: string;
  @ApiPropertyOptional({ type: 'integer', description: "DAILY_LIMIT_REACHED: the plan's limit" })
  dailyLimit?: number;
  @ApiPropertyOptional({ type: 'integer', description: 'DAILY_LIMIT_REACHED: used today' })
  usedToday?: number;
  @ApiPropertyOptional({
    type: String,
    format: 'date-time',
    nullable: true,
    description: 'DAILY_LIMIT_REACHED, BUDGET_EXCEEDED: next reset (null: a total budget)',
  })
  resetsAt?: string | null;
  @ApiPropertyOptional({
    enum: ['key', 'member', 'team', 'user'],
    description: 'BUDGET_EXCEEDED: the scope of the budget that refused',
  })
  scope?: string;
  @ApiPropertyOptional({
    format: 'uuid',
    description: 'BUDGET_EXCEEDED: the key, team or user it caps',
  })
  scopeId?: string;
  @ApiPropertyOptional({
    enum: ['day', 'week', 'month', 'hours', 'total'],
    description: 'BUDGET_EXCEEDED: the window that would be exceeded',
  })
  window?: string;
  @ApiPropertyOptional({
    type: 'integer',
    description: "BUDGET_EXCEEDED: an hours window's length",
  })
  hours?: number;
  @ApiPropertyOptional({
    type: 'integer',
    description: "BUDGET_EXCEEDED: the window's limit (credits)",
  })
  limit?: number;
  @ApiPropertyOptional({
    type: 'integer',
    description: 'BUDGET_EXCEEDED: credits used in the window',
  })
  used?: number;
  @ApiPropertyOptional({ type: 'integer', description: 'BUDGET_EXCEEDED: credits of open holds' })
  held?: number;

  @ApiPropertyOptional({
    type: 'integer',
    nullable: true,
    description: "KEY_DAILY_LIMIT_REACHED: the API key's own daily limit",
  })
  dailyCreditLimit?: number | null;
  @ApiPropertyOptional({ description: 'INSUFFICIENT_SCOPE: the scope the route needs' })
  requiredScope?: string;
  @ApiPropertyOptional({
    enum: ['EXPIRED', 'REVOKED', 'USED'],
    description: 'INVITATION_GONE: why',
  })
  reason?: string;
  @ApiPropertyOptional({ type: [String], description: 'UNSUPPORTED_MEDIA_TYPE: what is allowed' })
  allowedTypes?: string[];
  @ApiPropertyOptional({ type: 'integer', description: 'PAYLOAD_TOO_LARGE (upload): the limit' })
  limitBytes?: number;
  @ApiPropertyOptional({
    type: 'integer',
    description: "UPLOAD_QUOTA_EXCEEDED: the user's quota in bytes (UPLOAD_QUOTA_BYTES)",
  })
  quotaBytes?: number;
  @ApiPropertyOptional({
    type: 'integer',
    description: "UPLOAD_QUOTA_EXCEEDED: bytes of the user's stored uploads",
  })
  usedBytes?: number;
  @ApiPropertyOptional({ description: 'VALIDATION_FAILED (purchase): the USD ceiling' })
  maxAmount?: number;
  @ApiPropertyOptional({
    type: 'integer',
    description: 'VALIDATION_FAILED (purchase): most credits',
  })
  maxCredits?: number;
  @ApiPropertyOptional({ description: "PAYMENT_FAILED: the processor's decline code" })
  declineCode?: string;
  @ApiPropertyOptional({ description: 'PAYMENT_REQUEST_INVALID: the parameter refused' })
  param?: string;
  @ApiPropertyOptional({
    type: [String],
    description:
      'UNKNOWN_PLUGIN: the names that are neither built-in nor enabled plugins; PLUGIN_NOT_ALLOWED: the plugins refused in this chat',
  })
  plugins?: string[];
  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    description: 'NOT_READY: the health indicators',
  })
  details?: object;
}

/** An error on an envelope-B route (users, chats, upload, teams, invitations). */
export class ErrorEnvelopeBDto extends ErrorDto {
  @ApiProperty({ enum: [false] }) success: false;
}

/** The `error` object of an OpenAI-style error (`/v1` routes). */
export class OpenAiErrorBodyDto {
  @ApiProperty({ example: 'Invalid API key: revoked, expired or unknown' }) message: string;
  @ApiProperty({
    example: 'invalid_request_error',
    description:
      'invalid_request_error, authentication_error, permission_error, insufficient_quota, ' +
      'rate_limit_error or api_error',
  })
  type: string;
  @ApiProperty({
    type: String,
    nullable: true,
    example: 'invalid_api_key',
    description: 'our `code`, lower-cased (e.g. insufficient_credits, daily_limit_reached)',
  })
  code: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'the request field at fault' })
  param: string | null;
  @ApiPropertyOptional({ type: 'integer', description: 'insufficient_credits: credits needed' })
  required?: number;
  @ApiPropertyOptional({ type: 'integer', description: 'insufficient_credits: the balance' })
  balance?: number;
  @ApiPropertyOptional({ type: 'integer', description: "daily_limit_reached: the plan's limit" })
  dailyLimit?: number;
  @ApiPropertyOptional({
    type: 'integer',
    nullable: true,
    description: "key_daily_limit_reached: the key's limit",
  })
  dailyCreditLimit?: number | null;
  @ApiPropertyOptional({ type: 'integer', description: 'the daily limits: credits used today' })
  usedToday?: number;
  @ApiPropertyOptional({
    type: String,
    format: 'date-time',
    nullable: true,
    description: 'the daily limits and budget_exceeded: next reset (null: a total budget)',
  })
  resetsAt?: string | null;
  @ApiPropertyOptional({
    enum: ['key', 'member', 'team', 'user'],
    description: 'budget_exceeded: the scope of the budget that refused',
  })
  scope?: string;
  @ApiPropertyOptional({
    format: 'uuid',
    description: 'budget_exceeded: the key, team or user it caps',
  })
  scopeId?: string;
  @ApiPropertyOptional({
    format: 'uuid',
    description: 'budget_exceeded: the team (member and team scopes)',
  })
  teamId?: string;
  @ApiPropertyOptional({
    enum: ['day', 'week', 'month', 'hours', 'total'],
    description: 'budget_exceeded: the window that would be exceeded',
  })
  window?: string;
  @ApiPropertyOptional({
    type: 'integer',
    description: "budget_exceeded: an hours window's length",
  })
  hours?: number;
  @ApiPropertyOptional({
    type: 'integer',
    description: "budget_exceeded: the window's limit (credits)",
  })
  limit?: number;
  @ApiPropertyOptional({
    type: 'integer',
    description: 'budget_exceeded: credits used in the window',
  })
  used?: number;
  @ApiPropertyOptional({ type: 'integer', description: 'budget_exceeded: credits of open holds' })
  held?: number;

  @ApiPropertyOptional({ description: 'insufficient_scope: the scope needed' })
  requiredScope?: string;
}

/** Every error of the `/v1` routes, in OpenAI's shape, so OpenAI clients raise their usual errors. */
export class OpenAiErrorDto {
  @ApiProperty({ type: OpenAiErrorBodyDto }) error: OpenAiErrorBodyDto;
}

/** The `error` of an Anthropic error body. */
export class AnthropicErrorBodyDto {
  @ApiProperty({
    example: 'authentication_error',
    description:
      'invalid_request_error, authentication_error, billing_error (402), permission_error, ' +
      'not_found_error, request_too_large, rate_limit_error, api_error, overloaded_error (503) ' +
      'or timeout_error',
  })
  type: string;
  @ApiProperty({ example: 'Invalid API key: revoked, expired or unknown' }) message: string;
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    properties: {
      error_code: { type: 'string', description: 'our `code`, lower-cased' },
      param: { type: 'string', description: 'the request field at fault, when known' },
    },
    required: ['error_code'],
    description:
      "`error_code` (the SDK's `errorCode`), `param`, and our details (e.g. `required`, `balance`, `resetsAt`)",
  })
  details: Record<string, unknown>;
}

/** Every error of the `/v1/messages` routes, in Anthropic's shape, so Anthropic clients raise their usual errors. */
export class AnthropicErrorDto {
  @ApiProperty({ enum: ['error'] }) type: 'error';
  @ApiProperty({ type: AnthropicErrorBodyDto }) error: AnthropicErrorBodyDto;
}
