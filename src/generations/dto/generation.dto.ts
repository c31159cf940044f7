import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsDateString, IsOptional, IsString, IsUUID, MaxLength } from 'class-validator';
import { PageQueryDto } from '../../common/pagination/pagination';
import type { GenerationInput, TriedUpstream } from '../generation.types';

/**
 * A generation row as the statements read it: what the call recorded, plus what the settlement
 * wrote (the payer, the credits charged, the time).
 */
export interface GenerationRow extends GenerationInput {
  userId: string | null;
  cost: number;
  createdAt: Date;
}

export class TriedUpstreamDto implements TriedUpstream {
  @ApiProperty({ example: 'openai-eu', description: 'upstream name, or `env:<provider>`' })
  upstream: string;
  @ApiProperty({ example: 'gpt-4o-mini', description: 'the model id sent to it' }) model: string;
  @ApiPropertyOptional({ type: 'integer', example: 503 }) status?: number;
  @ApiPropertyOptional({ description: 'why it failed; absent: it answered' }) error?: string;
}

/** One model call (GET /api/generations). */
export class GenerationDto {
  @ApiProperty({ format: 'uuid', description: 'the generation id (`X-Generation-Id`)' })
  id: string;
  @ApiProperty({ type: String, format: 'uuid', nullable: true }) userId: string | null;
  @ApiProperty({ type: String, format: 'uuid', nullable: true }) keyId: string | null;
  @ApiProperty({ type: String, format: 'uuid', nullable: true }) teamId: string | null;
  @ApiProperty({ type: String, format: 'uuid', nullable: true }) chatId: string | null;
  @ApiProperty({ example: 'gpt-4o-mini' }) requestedModel: string;
  @ApiProperty({ example: 'gpt-4o-mini', description: 'the model that answered' }) model: string;
  @ApiProperty({ type: String, nullable: true, description: 'the upstream that answered' })
  upstream: string | null;
  @ApiProperty({ type: [TriedUpstreamDto], description: 'upstreams tried, in order' })
  attempts: TriedUpstreamDto[];
  @ApiProperty({ type: 'integer' }) promptTokens: number;
  @ApiProperty({ type: 'integer' }) completionTokens: number;
  @ApiProperty({ type: 'integer', nullable: true }) cachedTokens: number | null;
  @ApiProperty({ type: 'integer', nullable: true }) cacheWriteTokens: number | null;
  @ApiProperty({ type: 'integer', nullable: true }) reasoningTokens: number | null;
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    nullable: true,
    description: 'the tariff charged (prices per kind of token, version, markup)',
  })
  prices: object | null;
  @ApiProperty({ type: 'integer', description: 'credits charged (equal to the ledger entry)' })
  cost: number;
  @ApiProperty({ description: 'true: tokens estimated (no usage reported)' })
  usageEstimated: boolean;
  @ApiProperty() streamed: boolean;
  @ApiProperty({ type: 'integer', description: 'ms from admission to settlement' })
  latencyMs: number;
  @ApiProperty({ type: 'integer', nullable: true, description: 'ms to the first chunk' })
  firstTokenMs: number | null;
  @ApiProperty({ type: String, nullable: true, example: 'stop' }) finishReason: string | null;
  @ApiProperty({ format: 'date-time' }) createdAt: string;
}

export class GenerationPageDto {
  @ApiProperty({ type: [GenerationDto] }) data: GenerationDto[];
  @ApiProperty({ type: String, nullable: true }) nextCursor: string | null;
}

/** GET /api/generations: a page, filtered; `userId` other than your own needs the admin role. */
export class GenerationQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ format: 'uuid', description: 'admins: any user; others: only their own' })
  @IsOptional()
  @IsUUID()
  userId?: string;

  @ApiPropertyOptional({ format: 'uuid' })
  @IsOptional()
  @IsUUID()
  keyId?: string;

  @ApiPropertyOptional({ description: 'the answering model' })
  @IsOptional()
  @IsString()
  @MaxLength(100)
  model?: string;

  @ApiPropertyOptional({ description: 'the answering upstream' })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  upstream?: string;

  @ApiPropertyOptional({ format: 'date-time', description: 'from this time on (inclusive)' })
  @IsOptional()
  @IsDateString({ strict: true })
  from?: string;

  @ApiPropertyOptional({ format: 'date-time', description: 'before this time (exclusive)' })
  @IsOptional()
  @IsDateString({ strict: true })
  to?: string;
}

/** A row as the API answers it. */
export function generationDtoOf(g: GenerationRow): GenerationDto {
  return { ...g, attempts: g.attempts ?? [], createdAt: new Date(g.createdAt).toISOString() };
}
