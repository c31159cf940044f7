import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { CommonErrorCode, type ErrorCode } from '../errors/app-error';

/**
 * Every error body (envelopes A and C): `error` (message in the request's language) and `code`.
 * Some codes add the optional fields below (AppError `details`). The schema `ErrorCode` is
 * declared with the generic codes here; the document builder (src/app.setup.ts) lists every
 * code of the application in it, since common imports no module's codes.
 */
export class ErrorDto {
  @ApiProperty({ example: 'Authentication required' }) error: string;
  @ApiProperty({
    enum: CommonErrorCode,
    enumName: 'ErrorCode',
    example: CommonErrorCode.UNAUTHORIZED,
  })
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
