import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional } from 'class-validator';
import type { KindPrices } from '../price-kinds';
import type { PriceChange, SyncReport } from '../price-sync.service';
import type { PriceVersion } from '../price-book.service';

const USD = (kind: string) => ({
  type: String,
  example: '0.15',
  description: `${kind}, USD per million tokens (a decimal string)`,
});

/** A model's prices per kind of token, USD per million tokens; an absent kind falls back. */
export class KindPricesDto implements KindPrices {
  @ApiProperty(USD('uncached input tokens')) input: string;
  @ApiProperty(USD('generated tokens, reasoning excepted')) output: string;
  @ApiPropertyOptional(USD('input read from the prompt cache (absent: input)'))
  cachedInput?: string;
  @ApiPropertyOptional(USD('input written to the cache for 5 minutes (absent: input)'))
  cacheWrite5m?: string;
  @ApiPropertyOptional(USD('input written to the cache for 1 hour (absent: the 5-minute price)'))
  cacheWrite1h?: string;
  @ApiPropertyOptional(USD('reasoning tokens (absent: output)')) reasoning?: string;
  @ApiPropertyOptional(USD('image input tokens (absent: input)')) imageInput?: string;
  @ApiPropertyOptional(USD('audio input tokens (absent: input)')) audioInput?: string;
}

export const CHANGE_STATUSES = ['PENDING', 'APPROVED', 'REJECTED', 'SUPERSEDED'] as const;

/** GET /api/admin/prices/changes query. */
export class PriceChangesQueryDto {
  @ApiPropertyOptional({ enum: CHANGE_STATUSES, description: 'default: every status' })
  @IsOptional()
  @IsIn(CHANGE_STATUSES)
  status?: (typeof CHANGE_STATUSES)[number];
}

/** An increase the sync held for an admin's decision, and its outcome. */
export class PriceChangeDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ example: 'claude-sonnet-4-5' }) modelId: string;
  @ApiProperty({ type: KindPricesDto, description: 'the prices the source gives' })
  prices: KindPricesDto;
  @ApiProperty({ type: KindPricesDto, description: 'the prices in force when it was held' })
  previous: KindPricesDto;
  @ApiProperty({ example: '40', description: 'the largest rise of any kind, percent' })
  increasePercent: string;
  @ApiProperty({ enum: CHANGE_STATUSES }) status: PriceChange['status'];
  @ApiProperty({ format: 'date-time' }) createdAt: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) decidedAt: string | null;
  @ApiProperty({ type: String, format: 'uuid', nullable: true, description: 'the admin' })
  decidedBy: string | null;
}

export class PriceChangeListDto {
  @ApiProperty({ type: [PriceChangeDto] }) data: PriceChangeDto[];
}

/** One price version of a model. */
export class PriceVersionDto {
  @ApiProperty({ example: 'catalogue', description: 'a uuid, `catalogue` or `fallback`' })
  id: string;
  @ApiProperty() modelId: string;
  @ApiProperty({ format: 'date-time' }) effectiveAt: string;
  @ApiProperty({ type: KindPricesDto }) prices: KindPricesDto;
  @ApiProperty({ enum: ['catalogue', 'sync', 'admin', 'fallback'] }) source: PriceVersion['source'];
}

export class PriceVersionListDto {
  @ApiProperty({ type: [PriceVersionDto], description: 'oldest first; the last is in force' })
  data: PriceVersionDto[];
}

/** What one sync pass did. */
export class SyncReportDto implements SyncReport {
  @ApiProperty({ type: [String], description: 'models whose new price applies from now' })
  applied: string[];
  @ApiProperty({ type: [String], description: 'models whose increase waits for an admin' })
  held: string[];
  @ApiProperty({ type: [String] }) unchanged: string[];
  @ApiProperty({
    type: [String],
    description: 'models not priced in the source: they keep their price, flagged',
  })
  missing: string[];
}

export function mapChange(c: PriceChange): PriceChangeDto {
  return {
    id: c.id,
    modelId: c.modelId,
    prices: c.prices,
    previous: c.previous,
    increasePercent: c.increasePercent,
    status: c.status,
    decidedBy: c.decidedBy,
    createdAt: new Date(c.createdAt).toISOString(),
    decidedAt: c.decidedAt ? new Date(c.decidedAt).toISOString() : null,
  };
}

export function mapVersion(v: PriceVersion): PriceVersionDto {
  return {
    id: v.id,
    modelId: v.modelId,
    effectiveAt: v.effectiveAt.toISOString(),
    prices: v.prices,
    source: v.source,
  };
}

/** Every kind's price, fallbacks applied, USD per million tokens (before the markup). */
export class FullKindPricesDto {
  @ApiProperty(USD('uncached input tokens')) input: string;
  @ApiProperty(USD('input read from the prompt cache')) cachedInput: string;
  @ApiProperty(USD('input written to the cache for 5 minutes')) cacheWrite5m: string;
  @ApiProperty(USD('input written to the cache for 1 hour')) cacheWrite1h: string;
  @ApiProperty(USD('generated tokens, reasoning excepted')) output: string;
  @ApiProperty(USD('reasoning tokens')) reasoning: string;
  @ApiProperty(USD('image input tokens')) imageInput: string;
  @ApiProperty(USD('audio input tokens')) audioInput: string;
}

/** A model's price as the catalogue shows it (see docs/ai-and-credits.md#the-price-catalogue). */
export class ShownPricesDto {
  @ApiProperty({
    example: 'catalogue',
    description:
      'the price version in force: `catalogue`, `fallback`, a stored version id, or `spec` (CREDIT_PRICING=spec: every kind at costPerToken)',
  })
  version: string;
  @ApiProperty({ example: '1', description: 'the markup charged on top of these prices' })
  markup: string;
  @ApiProperty({ type: FullKindPricesDto }) perMillion: FullKindPricesDto;
}

/** The markups of the plans (CREDIT_PRICING=tokens): the default and each named plan's. */
export class MarkupsDto {
  @ApiProperty({ example: '1', description: 'CREDIT_MARKUP: every plan not named below' })
  default: string;
  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'string' },
    example: { PRO: '1.1' },
    description: 'CREDIT_MARKUP_PLANS',
  })
  plans: Record<string, string>;
}

/**
 * OpenRouter's `pricing` object of a model: USD per token as decimal strings, the caller's
 * markup included. `input_cache_write` is the 5-minute write; `input_cache_write_1h` ours.
 */
export class OpenRouterPricingDto {
  @ApiProperty({ example: '0.00000015' }) prompt: string;
  @ApiProperty({ example: '0.0000006' }) completion: string;
  @ApiProperty({ example: '0.000000075' }) input_cache_read: string;
  @ApiProperty({ example: '0.00000015' }) input_cache_write: string;
  @ApiProperty({ example: '0.00000015' }) input_cache_write_1h: string;
  @ApiProperty({ example: '0.0000006' }) internal_reasoning: string;
  @ApiProperty({ example: '0.00000015', description: 'per image input token' }) image: string;
  @ApiProperty({ example: '0.00000015', description: 'per audio input token' }) audio: string;
}
