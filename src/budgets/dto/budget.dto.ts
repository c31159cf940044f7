import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsIn,
  IsInt,
  IsOptional,
  IsTimeZone,
  IsUUID,
  Max,
  Min,
  ValidateIf,
  ValidateNested,
} from 'class-validator';
import { BUDGET_SCOPES, WINDOW_KINDS, type BudgetScope, type WindowKind } from '../budget.types';
import type { Budget } from '../budget.types';

/** Largest window limit accepted (credits). */
export const MAX_BUDGET_LIMIT = 1_000_000_000;

/** One window of a budget. */
export class BudgetWindowDto {
  @ApiProperty({
    enum: WINDOW_KINDS,
    description:
      "`day`, `week` (ISO, Monday), `month`: local to the budget's time zone; `hours`: a session " +
      'opened by the first charge, `hours` long; `total`: never resets',
  })
  @IsIn(WINDOW_KINDS)
  window: WindowKind;

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 1,
    maximum: 8784,
    nullable: true,
    description: "an `hours` window's length (required there, ignored elsewhere)",
  })
  @ValidateIf((w: BudgetWindowDto) => w.window === 'hours')
  @IsInt()
  @Min(1)
  @Max(8784)
  hours?: number | null;

  @ApiProperty({ type: 'integer', minimum: 0, maximum: MAX_BUDGET_LIMIT, description: 'credits' })
  @IsInt()
  @Min(0)
  @Max(MAX_BUDGET_LIMIT)
  limit: number;
}

/** PUT /api/budgets: creates or replaces the budget of a scope and owner. */
export class SetBudgetDto {
  @ApiProperty({ enum: BUDGET_SCOPES })
  @IsIn(BUDGET_SCOPES)
  scope: BudgetScope;

  @ApiPropertyOptional({
    format: 'uuid',
    description: '`user`: default the caller (admins: anyone); `member`: the member',
  })
  @IsOptional()
  @IsUUID()
  userId?: string;

  @ApiPropertyOptional({ format: 'uuid', description: '`team` and `member`' })
  @IsOptional()
  @IsUUID()
  teamId?: string;

  @ApiPropertyOptional({ format: 'uuid', description: "`key`: one of the caller's keys" })
  @IsOptional()
  @IsUUID()
  keyId?: string;

  @ApiPropertyOptional({ example: 'Asia/Shanghai', description: 'IANA zone; default APP_TIMEZONE' })
  @IsOptional()
  @IsTimeZone()
  timezone?: string;

  @ApiPropertyOptional({
    type: 'integer',
    isArray: true,
    example: [80],
    description: "soft thresholds, percent of each window's limit (1–99): one mail per window",
  })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(5)
  @IsInt({ each: true })
  @Min(1, { each: true })
  @Max(99, { each: true })
  thresholds?: number[];

  @ApiProperty({ type: [BudgetWindowDto], description: 'one per kind (and length of `hours`)' })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(8)
  @ValidateNested({ each: true })
  @Type(() => BudgetWindowDto)
  windows: BudgetWindowDto[];
}

/** A budget. */
export class BudgetDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ enum: BUDGET_SCOPES }) scope: BudgetScope;
  @ApiProperty({ format: 'uuid', nullable: true, type: String }) userId: string | null;
  @ApiProperty({ format: 'uuid', nullable: true, type: String }) teamId: string | null;
  @ApiProperty({ format: 'uuid', nullable: true, type: String }) keyId: string | null;
  @ApiProperty({ example: 'UTC' }) timezone: string;
  @ApiProperty({ type: 'integer', isArray: true }) thresholds: number[];
  @ApiProperty({ type: [BudgetWindowDto] }) windows: BudgetWindowDto[];
  @ApiProperty({ format: 'date-time' }) createdAt: string;
  @ApiProperty({ format: 'date-time' }) updatedAt: string;
}

/** DELETE /api/budgets/{id}. */
export class DeletedBudgetDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ enum: [true] }) deleted: true;
}

/** A budget as answered. */
export function toBudgetDto(b: Budget): BudgetDto {
  return {
    id: b.id,
    scope: b.scope,
    userId: b.userId,
    teamId: b.teamId,
    keyId: b.keyId,
    timezone: b.timezone,
    thresholds: b.thresholds,
    windows: b.windows.map((w) => ({ window: w.window, hours: w.hours, limit: w.limit })),
    createdAt: new Date(b.createdAt).toISOString(),
    updatedAt: new Date(b.updatedAt).toISOString(),
  };
}
