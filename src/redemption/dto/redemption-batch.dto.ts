import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsInt, IsISO8601, IsOptional, Max, Min } from 'class-validator';
import { IsBoundedString } from '../../common/validation/validators';
import { PageQueryDto } from '../../common/pagination/pagination';
import type { BatchRow } from '../redemption.types';

/** Codes one batch may hold (at most): a larger run is several batches. */
export const MAX_QUANTITY = 10_000;
/** Credits one use of a code may grant (at most). */
export const MAX_CODE_CREDITS = 1_000_000;
/** Uses one code may allow (at most). */
export const MAX_USES_PER_CODE = 10_000;

/** POST /api/admin/redemption-batches: a new batch of codes. */
export class CreateRedemptionBatchDto {
  @IsBoundedString(1, 100)
  name: string;

  @ApiProperty({ type: 'integer', minimum: 1, maximum: MAX_CODE_CREDITS, example: 500 })
  @IsInt()
  @Min(1)
  @Max(MAX_CODE_CREDITS)
  credits: number;

  @ApiProperty({ type: 'integer', minimum: 1, maximum: MAX_QUANTITY, example: 100 })
  @IsInt()
  @Min(1)
  @Max(MAX_QUANTITY)
  quantity: number;

  @ApiPropertyOptional({ format: 'date-time', description: 'in the future; none: never expires' })
  @IsOptional()
  @IsISO8601({ strict: true }, { message: 'expiresAt must be an ISO 8601 date-time' })
  expiresAt?: string;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: MAX_USES_PER_CODE, default: 1 })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(MAX_USES_PER_CODE)
  usesPerCode?: number;

  @ApiPropertyOptional({
    default: true,
    description: 'true: each user may use a code once (its other uses go to other users)',
  })
  @IsOptional()
  @IsBoolean()
  onePerUser?: boolean;
}

/** `?limit=&cursor=` of the batch list (newest first). */
export class RedemptionBatchQueryDto extends PageQueryDto {}

/** How a batch's codes stand. */
export class RedemptionCountsDto {
  @ApiProperty({ type: 'integer', description: 'codes in the batch' }) created: number;
  @ApiProperty({ type: 'integer', description: 'codes used at least once' }) redeemed: number;
  @ApiProperty({ type: 'integer', description: 'uses taken, over every code' })
  redemptions: number;
  @ApiProperty({ type: 'integer', description: 'codes with a use left, usable now' })
  available: number;
  @ApiProperty({
    type: 'integer',
    description: 'codes the batch expired with uses left (0 before `expiresAt`)',
  })
  expired: number;
}

/** A batch as admins see it: never its codes (only the one export shows them). */
export class RedemptionBatchDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty() name: string;
  @ApiProperty({ type: 'integer', description: 'credits each use grants' }) credits: number;
  @ApiProperty({ type: 'integer', description: 'codes made' }) quantity: number;
  @ApiProperty({ type: 'integer' }) usesPerCode: number;
  @ApiProperty() onePerUser: boolean;
  @ApiProperty({ enum: ['active', 'disabled', 'expired'] })
  status: 'active' | 'disabled' | 'expired';
  @ApiProperty({ format: 'date-time', nullable: true, type: String }) expiresAt: string | null;
  @ApiProperty({ format: 'date-time', nullable: true, type: String }) disabledAt: string | null;
  @ApiProperty({
    format: 'date-time',
    nullable: true,
    type: String,
    description: 'when the codes were exported (they cannot be exported again)',
  })
  exportedAt: string | null;
  @ApiProperty({ format: 'date-time' }) createdAt: string;
  @ApiProperty({ type: RedemptionCountsDto }) counts: RedemptionCountsDto;
}

/** GET /api/admin/redemption-batches: a page of batches, newest first (envelope C). */
export class RedemptionBatchPageDto {
  @ApiProperty({ type: [RedemptionBatchDto] }) data: RedemptionBatchDto[];
  @ApiProperty({ type: String, nullable: true }) nextCursor: string | null;
}

/** A batch row with its counts, at `now`, as the API answers it. */
export function toRedemptionBatchDto(b: BatchRow, now: Date): RedemptionBatchDto {
  const expired = b.expiresAt !== null && b.expiresAt.getTime() <= now.getTime();
  const usable = !expired && b.disabledAt === null;
  return {
    id: b.id,
    name: b.name,
    credits: b.credits,
    quantity: b.quantity,
    usesPerCode: b.usesPerCode,
    onePerUser: b.onePerUser,
    status: b.disabledAt ? 'disabled' : expired ? 'expired' : 'active',
    expiresAt: b.expiresAt?.toISOString() ?? null,
    disabledAt: b.disabledAt?.toISOString() ?? null,
    exportedAt: b.exportedAt?.toISOString() ?? null,
    createdAt: b.createdAt.toISOString(),
    counts: {
      created: b.created,
      redeemed: b.redeemed,
      redemptions: b.redemptions,
      available: usable ? b.open : 0,
      expired: expired ? b.open : 0,
    },
  };
}
