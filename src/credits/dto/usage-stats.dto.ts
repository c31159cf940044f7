import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsISO8601, IsOptional, Matches } from 'class-validator';

export const USAGE_GROUPS = ['day', 'model', 'key'] as const;
export type UsageGroup = (typeof USAGE_GROUPS)[number];

const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** GET /api/credits/usage and GET /api/users/{id}/usage: local days in APP_TIMEZONE. */
export class UsageQueryDto {
  @ApiPropertyOptional({
    format: 'date',
    example: '2026-01-01',
    description: 'first local day; default 29 days before `to`',
  })
  @IsOptional()
  @Matches(DATE, { message: 'from must be a date YYYY-MM-DD' })
  @IsISO8601({ strict: true }, { message: 'from must be a valid date' })
  from?: string;

  @ApiPropertyOptional({
    format: 'date',
    example: '2026-01-07',
    description: 'last local day, included; default today',
  })
  @IsOptional()
  @Matches(DATE, { message: 'to must be a date YYYY-MM-DD' })
  @IsISO8601({ strict: true }, { message: 'to must be a valid date' })
  to?: string;

  @ApiPropertyOptional({ enum: USAGE_GROUPS, default: 'day' })
  @IsOptional()
  @IsIn(USAGE_GROUPS)
  groupBy?: UsageGroup;
}

export class UsageTotalsDto {
  @ApiProperty({ type: 'integer', description: 'metered AI requests' }) requests: number;
  @ApiProperty({ type: 'integer' }) promptTokens: number;
  @ApiProperty({ type: 'integer' }) completionTokens: number;
  @ApiProperty({
    type: 'integer',
    description: 'of promptTokens, those read from the provider prompt cache (as reported)',
  })
  cachedTokens: number;
  @ApiProperty({
    type: 'integer',
    description:
      'credits the cache reads saved: what they would have cost at the full input price, less ' +
      'what they cost (CREDIT_PRICING=tokens; always 0 with spec pricing, one price per token)',
  })
  cacheSavings: number;
  @ApiProperty({ type: 'integer', description: 'credits consumed' }) credits: number;
}

/** One day (`groupBy=day`) or one model (`groupBy=model`). */
export class UsageRowDto extends UsageTotalsDto {
  @ApiPropertyOptional({ format: 'date', description: 'groupBy=day: the local day' })
  day?: string;
  @ApiPropertyOptional({
    type: String,
    nullable: true,
    description: 'groupBy=model: the model (null for entries recorded before models were)',
  })
  modelId?: string | null;
  @ApiPropertyOptional({
    type: String,
    format: 'uuid',
    nullable: true,
    description: 'groupBy=key: the API key (null: requests made with a session)',
  })
  keyId?: string | null;
}

/** Usage statistics computed from the ledger's CONSUMPTION entries. */
export class UsageStatsDto {
  @ApiProperty({ format: 'date' }) from: string;
  @ApiProperty({ format: 'date' }) to: string;
  @ApiProperty({ enum: USAGE_GROUPS }) groupBy: UsageGroup;
  @ApiProperty({ example: 'Europe/Lisbon', description: 'APP_TIMEZONE, in which days are counted' })
  timezone: string;
  @ApiProperty({
    type: [UsageRowDto],
    description: 'by day: every day, oldest first; by model: most credits first',
  })
  data: UsageRowDto[];
  @ApiProperty({ type: UsageTotalsDto }) totals: UsageTotalsDto;
}
