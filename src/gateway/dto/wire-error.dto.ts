import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

// The error bodies of the `/v1` wire protocols (src/gateway/wire-error-formats.ts); the OpenAPI
// document declares them for every error of those paths in place of ErrorDto.

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
