import { ApiProperty } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsNumber, IsOptional, Max, Min, IsInt } from 'class-validator';
import { WINDOW_KINDS, type WindowKind } from '../budget.types';
import type { Limit } from '../budget-limits.service';

/** One window that applies: what is left in it and when it resets. */
export class LimitDto {
  @ApiProperty({ enum: ['key', 'member', 'team', 'user', 'plan'] }) scope: Limit['scope'];
  @ApiProperty({ format: 'uuid', description: 'the key, team or user capped' }) scopeId: string;
  @ApiProperty({ format: 'uuid', nullable: true, type: String }) teamId: string | null;
  @ApiProperty({ enum: WINDOW_KINDS }) window: WindowKind;
  @ApiProperty({ type: 'integer', nullable: true }) hours: number | null;
  @ApiProperty({ type: 'integer', description: 'credits' }) limit: number;
  @ApiProperty({ type: 'integer', description: 'credits consumed in the window' }) used: number;
  @ApiProperty({ type: 'integer', description: 'credits of open holds' }) held: number;
  @ApiProperty({ type: 'integer', description: 'limit − used − held, at least 0' })
  remaining: number;
  @ApiProperty({
    format: 'date-time',
    nullable: true,
    type: String,
    description: 'null for `total` and for an `hours` window with no session open',
  })
  resetsAt: string | null;
  @ApiProperty({
    type: 'integer',
    nullable: true,
    description: 'the projected total of the window at the rate since it started',
  })
  pace: number | null;
}

/** GET /api/credits/limits. */
export class LimitsDto {
  @ApiProperty({ type: [LimitDto] }) data: LimitDto[];
}

/** GET /api/admin/budgets/near-limit query. */
export class NearLimitQueryDto {
  @ApiProperty({ required: false, minimum: 0, maximum: 1, default: 0.8 })
  @IsOptional()
  @Type(() => Number)
  @IsNumber()
  @Min(0)
  @Max(1)
  ratio?: number;

  @ApiProperty({ required: false, type: 'integer', minimum: 1, maximum: 200, default: 50 })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(200)
  limit?: number;
}

/** GET /v1/key: OpenRouter's key shape, with our windows beside it. */
export class KeyInfoDataDto {
  @ApiProperty({ example: 'CI script (sk-ab12…)' }) label: string;
  @ApiProperty({ type: 'integer', description: 'credits the key consumed, ever' }) usage: number;
  @ApiProperty({ type: 'integer' }) usage_daily: number;
  @ApiProperty({ type: 'integer' }) usage_weekly: number;
  @ApiProperty({ type: 'integer' }) usage_monthly: number;
  @ApiProperty({
    type: 'integer',
    nullable: true,
    description: "the key budget's tightest window limit; null without a key budget",
  })
  limit: number | null;
  @ApiProperty({ type: 'integer', nullable: true }) limit_remaining: number | null;
  @ApiProperty({
    type: String,
    nullable: true,
    example: 'daily',
    description: "that window's reset interval: daily, weekly, monthly, hours or never",
  })
  limit_reset: string | null;
  @ApiProperty({ description: 'always false: credits, not a free tier' }) is_free_tier: boolean;
  @ApiProperty({ type: [LimitDto], description: "the key's windows, then its user's" })
  windows: LimitDto[];
}

export class KeyInfoDto {
  @ApiProperty({ type: KeyInfoDataDto }) data: KeyInfoDataDto;
}
