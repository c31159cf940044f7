import { Inject, Injectable } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { Clock } from '../common/clock/clock';
import { AppError, CommonErrorCode } from '../common/errors/app-error';
import { pageSize } from '../common/pagination/pagination';
import { appSettingsConfig } from '../config/app-settings.config';
import { adminUsageSql } from './admin-usage.sql';
import type { AdminUsageDto, AdminUsageQueryDto, AdminUsageRowDto } from './dto/admin-usage.dto';
import type { UsageTotalsDto } from './dto/usage-stats.dto';
import { usageRange } from './usage-stats.service';

interface Result {
  groups: number;
  totals: UsageTotalsDto;
  rows: (UsageTotalsDto & { id: string | null; label: string | null })[];
}

/** A page cursor: the offset of the page's first group, opaque to callers. */
const encodeOffset = (offset: number) => Buffer.from(`o:${offset}`).toString('base64url');

/** Throws VALIDATION_FAILED (400) for a cursor this route did not issue. */
function decodeOffset(cursor: string): number {
  const match = /^o:(\d{1,9})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (!match) throw new AppError(CommonErrorCode.VALIDATION_FAILED, 'cursor is invalid');
  return Number(match[1]);
}

/**
 * Usage across every user for operators, from the ledger's CONSUMPTION entries (one per metered
 * request, with its user, model, API key and tokens), so credits add up to the ledger. A team's
 * usage is the consumption of its members since each joined (in any chat, with or without a
 * key): the ledger does not record which chat or team a request was for.
 */
@Injectable()
export class AdminUsageService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly clock: Clock,
    @Inject(appSettingsConfig.KEY) private readonly app: ConfigType<typeof appSettingsConfig>,
  ) {}

  /**
   * One page of groups (`limit`, default 50, at most 100) over local days `from`..`to`
   * (APP_TIMEZONE, default the last 30 days), with the totals of the whole range. Throws
   * VALIDATION_FAILED (400) for `from` after `to`, a range over 366 days or a foreign cursor.
   * An unknown `userId` or `teamId` matches nothing (an empty page, zero totals).
   */
  async usage(q: AdminUsageQueryDto): Promise<AdminUsageDto> {
    const timezone = this.app.timezone;
    const { from, to } = usageRange(q, this.clock.now(), timezone);
    const groupBy = q.groupBy ?? 'user';
    const limit = pageSize(q.limit);
    const offset = q.cursor ? decodeOffset(q.cursor) : 0;
    const { sql, params } = adminUsageSql({
      groupBy,
      from,
      to,
      timezone,
      userId: q.userId,
      teamId: q.teamId,
      limit,
      offset,
    });
    const [result] = (await this.dataSource.query(sql, params)) as Result[];
    const data: AdminUsageRowDto[] = result.rows.map(({ id, label, ...sums }) => ({
      key: id,
      label,
      ...numbers(sums),
    }));
    return {
      from,
      to,
      groupBy,
      timezone,
      data,
      groups: result.groups,
      totals: numbers(result.totals),
      nextCursor: offset + data.length < result.groups ? encodeOffset(offset + data.length) : null,
    };
  }
}

/** The sums as numbers (JSON from PostgreSQL already has them as numbers; bigint-safe below 2^53). */
function numbers(s: UsageTotalsDto): UsageTotalsDto {
  return {
    requests: Number(s.requests),
    promptTokens: Number(s.promptTokens),
    completionTokens: Number(s.completionTokens),
    cachedTokens: Number(s.cachedTokens),
    cacheSavings: Number(s.cacheSavings),
    credits: Number(s.credits),
  };
}
