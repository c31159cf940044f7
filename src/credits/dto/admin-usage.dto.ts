import { ApiProperty, ApiPropertyOptional, IntersectionType, OmitType } from '@nestjs/swagger';
import { IsIn, IsOptional, IsUUID } from 'class-validator';
import { PageQueryDto } from '../../common/pagination/pagination';
import { UsageQueryDto, UsageTotalsDto } from './usage-stats.dto';

export const ADMIN_USAGE_GROUPS = ['user', 'team', 'model', 'key', 'day'] as const;
export type AdminUsageGroup = (typeof ADMIN_USAGE_GROUPS)[number];

/**
 * GET /api/admin/usage: every user's consumption over local days `from`..`to` (APP_TIMEZONE),
 * grouped, optionally only one user's or one team's members', a page of groups at a time
 * (`limit`, `cursor`). `from` and `to` are checked as for GET /api/credits/usage.
 */
export class AdminUsageQueryDto extends IntersectionType(
  OmitType(UsageQueryDto, ['groupBy'] as const),
  PageQueryDto,
) {
  @ApiPropertyOptional({ enum: ADMIN_USAGE_GROUPS, default: 'user' })
  @IsOptional()
  @IsIn(ADMIN_USAGE_GROUPS)
  groupBy?: AdminUsageGroup;

  @ApiPropertyOptional({ format: 'uuid', description: "only this user's consumption" })
  @IsOptional()
  @IsUUID()
  userId?: string;

  @ApiPropertyOptional({
    format: 'uuid',
    description: "only the consumption of this team's members, each since they joined",
  })
  @IsOptional()
  @IsUUID()
  teamId?: string;
}

/** One group: a user, a team, a model, an API key or a local day, with its sums. */
export class AdminUsageRowDto extends UsageTotalsDto {
  @ApiProperty({
    type: String,
    nullable: true,
    description:
      'the group: a user id, team id, model id, API key id or local day (`YYYY-MM-DD`); null ' +
      'for model entries recorded before models were, or for requests made without a key',
  })
  key: string | null;
  @ApiProperty({
    type: String,
    nullable: true,
    description:
      "what to show: the user's email, the team's or key's name, the model id or the day; null " +
      'when the group is null or its user, team or key was deleted',
  })
  label: string | null;
}

/** Usage across users, computed from the ledger's CONSUMPTION entries. */
export class AdminUsageDto {
  @ApiProperty({ format: 'date' }) from: string;
  @ApiProperty({ format: 'date' }) to: string;
  @ApiProperty({ enum: ADMIN_USAGE_GROUPS }) groupBy: AdminUsageGroup;
  @ApiProperty({ example: 'Europe/Lisbon', description: 'APP_TIMEZONE, in which days are counted' })
  timezone: string;
  @ApiProperty({
    type: [AdminUsageRowDto],
    description:
      'a page of groups: by day every day of the range, oldest first (days without use included); ' +
      'otherwise most credits first',
  })
  data: AdminUsageRowDto[];
  @ApiProperty({ type: 'integer', description: 'groups in the whole range, on every page' })
  groups: number;
  @ApiProperty({
    type: UsageTotalsDto,
    description:
      'sums over every matching entry (every page). By team, a member of two teams counts in ' +
      'both rows and a user in no team in none, so rows need not add up to the totals',
  })
  totals: UsageTotalsDto;
  @ApiProperty({ type: String, nullable: true, description: 'cursor of the next page' })
  nextCursor: string | null;
}
