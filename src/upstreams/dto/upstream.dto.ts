import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { UPSTREAM_STATES, type UpstreamHealth, type UpstreamStateName } from '../upstream-health';
import type { RoutableUpstream } from '../upstream-order';
import { UPSTREAM_PROVIDERS, type UpstreamProvider } from '../upstream-router.types';
import type { Upstream } from '../upstream.entity';
import type { MinuteUsage } from '../upstream-usage.sql';

/** An upstream's last failure (never a key). */
export interface UpstreamErrorDto {
  message: string;
  status?: number;
}

/** Requests and tokens of the current clock minute, every instance's. */
export class MinuteUsageDto {
  @ApiProperty({ type: 'integer', example: 12 }) requests: number;
  @ApiProperty({ type: 'integer', example: 4210 }) tokens: number;
}

/** An upstream as the admin routes answer it: `hasApiKey`, never the key. */
export class UpstreamDto {
  @ApiProperty({
    example: '1b0c6a3e-6f1d-4a44-9a59-2f5d3b8a1c20',
    description: 'a uuid, or `env:<provider>`',
  })
  id: string;
  @ApiProperty({
    enum: ['table', 'environment'],
    description: 'environment: read-only, from OPENAI_*, ANTHROPIC_*, GEMINI_*',
  })
  source: 'table' | 'environment';
  @ApiProperty({ enum: UPSTREAM_PROVIDERS }) provider: UpstreamProvider;
  @ApiProperty({ example: 'openai-eu' }) name: string;
  @ApiProperty({
    type: String,
    nullable: true,
    example: 'https://api.openai.com/v1',
    description: 'null: the SDK’s default host',
  })
  baseUrl: string | null;
  @ApiProperty() hasApiKey: boolean;
  @ApiProperty({ type: [String], description: 'empty: every catalogue model of the family' })
  models: string[];
  @ApiProperty({ type: 'object', additionalProperties: { type: 'string' } }) modelMap: Record<
    string,
    string
  >;
  @ApiProperty({ example: 0 }) priority: number;
  @ApiProperty({ example: 1 }) weight: number;
  @ApiProperty() enabled: boolean;
  @ApiProperty({
    type: Number,
    nullable: true,
    description: 'requests per minute, all instances together; null: no ceiling',
  })
  rpm: number | null;
  @ApiProperty({
    type: Number,
    nullable: true,
    description:
      'tokens (prompt + completion) per minute, all instances together; null: no ceiling',
  })
  tpm: number | null;
  @ApiProperty({ enum: UPSTREAM_STATES, description: 'cooling only while its cooldown runs' })
  state: UpstreamStateName;
  @ApiProperty({ example: 0 }) consecutiveFailures: number;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) cooldownUntil: string | null;
  @ApiProperty({
    type: 'object',
    nullable: true,
    description: 'the last failure: the upstream’s message and HTTP status (when it answered)',
    properties: { message: { type: 'string' }, status: { type: 'integer', example: 401 } },
    required: ['message'],
  })
  lastError: UpstreamErrorDto | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) lastErrorAt: string | null;
  @ApiProperty({
    type: MinuteUsageDto,
    description:
      'requests and tokens (prompt + completion) sent this clock minute by every instance; counted only while the upstream has an `rpm` or `tpm`',
  })
  minuteUsage: MinuteUsageDto;
  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    description: 'null for the environment’s',
  })
  createdAt: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) updatedAt: string | null;
}

export class UpstreamListDto {
  @ApiProperty({ type: [UpstreamDto] }) data: UpstreamDto[];
}

export class UpstreamDeletedDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ enum: [true] }) deleted: true;
}

/** POST /api/admin/upstreams/{id}/test: how a one-token call went. */
export class UpstreamTestResultDto {
  @ApiProperty() ok: boolean;
  @ApiProperty({
    example: 'gpt-4o-mini',
    description:
      'the catalogue model called (a chat model, or an embedding model for an upstream serving embedding models only)',
  })
  model: string;
  @ApiPropertyOptional({ example: 312, description: 'success: the call’s duration, ms' })
  latencyMs?: number;
  @ApiPropertyOptional({
    example: 401,
    description: 'failure: the upstream’s HTTP status, when it answered',
  })
  status?: number;
  @ApiPropertyOptional({
    example: 'Incorrect API key provided',
    description: 'failure: the upstream’s message',
  })
  message?: string;
}

const iso = (d: Date | null | undefined) => (d ? d.toISOString() : null);

/** The health fields of an answer, from `h` (none: healthy) as it stands at `now`. */
/** What an answer shows beside the row: its health, its state now, its usage this minute. */
export interface UpstreamStatus {
  health?: UpstreamHealth;
  state: UpstreamStateName;
  minute: MinuteUsage;
}

function statusFields({ health: h, state, minute }: UpstreamStatus) {
  return {
    state,
    consecutiveFailures: h?.consecutiveFailures ?? 0,
    cooldownUntil: state === 'cooling' ? iso(h?.cooldownUntil) : null,
    lastError: h?.lastError ?? null,
    lastErrorAt: iso(h?.lastErrorAt),
    minuteUsage: { requests: minute.requests, tokens: minute.tokens },
  };
}

/** The answer for row `u` (the key only as `hasApiKey`). */
export function mapUpstream(u: Upstream, status: UpstreamStatus): UpstreamDto {
  return {
    id: u.id,
    source: 'table',
    provider: u.provider,
    name: u.name,
    baseUrl: u.baseUrl,
    hasApiKey: !!u.apiKeySealed,
    models: u.models,
    modelMap: u.modelMap,
    priority: u.priority,
    weight: u.weight,
    enabled: u.enabled,
    rpm: u.rpm,
    tpm: u.tpm,
    ...statusFields(status),
    createdAt: iso(u.createdAt),
    updatedAt: iso(u.updatedAt),
  };
}

/** The answer for an environment upstream (read-only). */
export function mapEnvironmentUpstream(u: RoutableUpstream, status: UpstreamStatus): UpstreamDto {
  return {
    id: u.id,
    source: 'environment',
    provider: u.provider,
    name: u.name,
    baseUrl: u.baseUrl ?? null,
    hasApiKey: !!u.apiKey,
    models: u.models,
    modelMap: u.modelMap,
    priority: u.priority,
    weight: u.weight,
    enabled: u.enabled,
    rpm: null,
    tpm: null,
    ...statusFields(status),
    createdAt: null,
    updatedAt: null,
  };
}
