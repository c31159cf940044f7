import { ApiProperty } from '@nestjs/swagger';
import { PLANS } from '../../users/user.entity';
import { CREDIT_TRANSACTION_TYPES, type CreditTransactionType } from '../credit-transaction.entity';
import type { CreditSummary } from '../credits-usage.service';
import type { LedgerEntry } from '../credits.service';

/** GET /api/credits: balance and today's usage against the plan's daily limit (spec Limits 3). */
export class CreditSummaryDto implements CreditSummary {
  @ApiProperty({ type: 'integer', example: 100 }) balance: number;
  @ApiProperty({ enum: PLANS, example: 'FREE' }) plan: string;
  @ApiProperty({ type: 'integer', example: 100 }) dailyLimit: number;
  @ApiProperty({ type: 'integer', description: 'credits consumed since local midnight' })
  usedToday: number;
  @ApiProperty({ type: 'integer', description: 'credits reserved by replies in progress' })
  heldCredits: number;
  @ApiProperty({ format: 'date-time', description: 'next local midnight' }) resetsAt: string;
}

/** One ledger entry; `amount` negative for consumption. */
export class LedgerEntryDto implements LedgerEntry {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ type: 'integer', example: -3 }) amount: number;
  @ApiProperty({ enum: CREDIT_TRANSACTION_TYPES }) type: CreditTransactionType;
  @ApiProperty({ example: 'gpt-4o-mini: 120 + 80 tokens' }) description: string;
  @ApiProperty({
    type: String,
    format: 'uuid',
    nullable: true,
    description: 'the API key a consumption came through; null for sessions and other entries',
  })
  keyId: string | null;
  @ApiProperty({
    type: String,
    nullable: true,
    example: 'gpt-4o-mini',
    description: "a consumption's model",
  })
  modelId: string | null;
  @ApiProperty({
    type: 'integer',
    nullable: true,
    description: "a consumption's prompt tokens, every kind included",
  })
  promptTokens: number | null;
  @ApiProperty({
    type: 'integer',
    nullable: true,
    description: "a consumption's completion tokens, reasoning included",
  })
  completionTokens: number | null;
  @ApiProperty({
    type: 'integer',
    nullable: true,
    description: "of promptTokens, read from the provider's prompt cache (null: not reported)",
  })
  cachedTokens: number | null;
  @ApiProperty({
    type: 'integer',
    nullable: true,
    description:
      "of promptTokens, written to the provider's prompt cache, 5-minute and 1-hour writes together (null: not reported)",
  })
  cacheWriteTokens: number | null;
  @ApiProperty({
    type: 'integer',
    nullable: true,
    description: 'of completionTokens, the reasoning tokens (null: not reported)',
  })
  reasoningTokens: number | null;
  @ApiProperty({
    type: 'integer',
    nullable: true,
    description: 'credits the cache reads saved (CREDIT_PRICING=tokens; 0 with spec pricing)',
  })
  cacheSavings: number | null;
  @ApiProperty({
    type: String,
    format: 'uuid',
    nullable: true,
    description:
      "a model call's consumption: its generation id (`X-Generation-Id`, `GET /v1/generations/{id}`); null on other entries",
  })
  generationId: string | null;
  @ApiProperty({ format: 'date-time' }) createdAt: string;
}

/** GET /api/credits/transactions: a page of the ledger (envelope C). */
export class LedgerPageDto {
  @ApiProperty({ type: [LedgerEntryDto] }) data: LedgerEntryDto[];
  @ApiProperty({ type: String, nullable: true, description: 'pass as `cursor` for the next page' })
  nextCursor: string | null;
}
