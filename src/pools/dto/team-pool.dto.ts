import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, Max, Min } from 'class-validator';
import { TEAM_ROLES, type TeamRole } from '../../teams/team-role';

/** Credits one transfer may move (at most). */
export const MAX_TRANSFER = 1_000_000_000;

/** POST /api/teams/{id}/credits/transfers: credits moved from the caller's balance. */
export class PoolTransferDto {
  @ApiProperty({ type: 'integer', minimum: 1, maximum: MAX_TRANSFER, example: 500 })
  @IsInt()
  @Min(1)
  @Max(MAX_TRANSFER)
  amount: number;
}

/** The period of a usage view: the last `days` days (1–366, default 30). */
export class PoolUsageQueryDto {
  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 366, default: 30 })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(366)
  days?: number;
}

/** A member's use of the pool over the period. */
export class PoolMemberUsageDto {
  @ApiProperty({ format: 'uuid', description: 'the member (user id)' }) userId: string;
  @ApiProperty({ type: 'integer', description: "credits the pool paid for the member's calls" })
  spent: number;
  @ApiProperty({ type: 'integer', description: 'metered calls the pool paid for' }) calls: number;
  @ApiProperty({ type: 'integer', description: 'credits the member put in (transfers, purchases)' })
  funded: number;
}

/** GET /api/teams/{id}/credits: the pool as any member sees it. */
export class TeamPoolDto {
  @ApiProperty({ format: 'uuid' }) teamId: string;
  @ApiProperty({ type: 'integer', description: "the pool's balance in credits" }) credits: number;
  @ApiProperty({ type: 'integer', description: 'credits reserved by calls in progress' })
  held: number;
  @ApiProperty({ enum: TEAM_ROLES, description: "the caller's role in the team" }) role: TeamRole;
  @ApiProperty({ format: 'date-time', description: 'start of the usage period' }) since: string;
  @ApiProperty({ type: PoolMemberUsageDto, description: "the caller's own use of the pool" })
  mine: PoolMemberUsageDto;
}

/** GET /api/teams/{id}/credits/usage: every member's use (OWNER or ADMIN). */
export class TeamPoolUsageDto {
  @ApiProperty({ format: 'uuid' }) teamId: string;
  @ApiProperty({ format: 'date-time', description: 'start of the usage period' }) since: string;
  @ApiProperty({
    type: [PoolMemberUsageDto],
    description: 'members (current and former) with any entry in the period, most spent first',
  })
  members: PoolMemberUsageDto[];
}

/** POST /api/teams/{id}/credits/transfers: the balances after the transfer. */
export class PoolTransferResultDto {
  @ApiProperty({ type: 'integer', description: "the pool's new balance" }) credits: number;
  @ApiProperty({ type: 'integer', description: "the caller's own new balance" }) balance: number;
}
