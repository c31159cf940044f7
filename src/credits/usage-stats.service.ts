import { Inject, Injectable } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { Clock } from '../common/clock/clock';
import { AppError, CommonErrorCode } from '../common/errors/app-error';
import { UsersErrorCode } from '../users/users.errors';
import { appSettingsConfig } from '../config/app-settings.config';
import { preparedQuery } from '../database/prepared';
import type { UsageGroup, UsageRowDto, UsageStatsDto } from './dto/usage-stats.dto';
import {
  USAGE_BY_DAY_SQL,
  USAGE_BY_KEY_SQL,
  USAGE_BY_MODEL_SQL,
  USER_EXISTS_SQL,
} from './usage-stats.sql';

/** At most this many days in one range. */
export const MAX_USAGE_DAYS = 366;
/** Days in the range when `from` is not given (ending `to`). */
export const DEFAULT_USAGE_DAYS = 30;

const DAY_MS = 86_400_000;
const SQL_BY_GROUP: Record<UsageGroup, string> = {
  day: USAGE_BY_DAY_SQL,
  model: USAGE_BY_MODEL_SQL,
  key: USAGE_BY_KEY_SQL,
};
const dayNumber = (date: string) => Date.parse(`${date}T00:00:00Z`) / DAY_MS;
const dateOf = (day: number) => new Date(day * DAY_MS).toISOString().slice(0, 10);

interface Row {
  day?: string;
  modelId?: string | null;
  keyId?: string | null;
  requests: number;
  promptTokens: string;
  completionTokens: string;
  cachedTokens: string;
  cacheSavings: string;
  credits: string;
}

/**
 * Usage statistics per local day or per model, computed from the ledger: each metered request
 * is one CONSUMPTION entry carrying its model and tokens, so the credits add up to the ledger.
 */
@Injectable()
export class UsageStatsService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly clock: Clock,
    @Inject(appSettingsConfig.KEY) private readonly app: ConfigType<typeof appSettingsConfig>,
  ) {}

  /**
   * Usage of `userId` from local day `from` to `to` (inclusive, `YYYY-MM-DD` in APP_TIMEZONE;
   * default the last 30 days up to today). Throws VALIDATION_FAILED (400) when `from` is after
   * `to` or the range is over 366 days.
   */
  async usage(
    userId: string,
    q: { from?: string; to?: string; groupBy?: UsageGroup },
  ): Promise<UsageStatsDto> {
    const timezone = this.app.timezone;
    const { from, to } = usageRange(q, this.clock.now(), timezone);
    const groupBy = q.groupBy ?? 'day';
    const rows = await preparedQuery<Row>(this.dataSource, SQL_BY_GROUP[groupBy], [
      userId,
      from,
      to,
      timezone,
    ]);
    const data: UsageRowDto[] = rows.map((r) => ({
      ...(groupBy === 'day'
        ? { day: r.day }
        : groupBy === 'model'
          ? { modelId: r.modelId ?? null }
          : { keyId: r.keyId ?? null }),
      requests: r.requests,
      promptTokens: Number(r.promptTokens),
      completionTokens: Number(r.completionTokens),
      cachedTokens: Number(r.cachedTokens),
      cacheSavings: Number(r.cacheSavings),
      credits: Number(r.credits),
    }));
    const totals = {
      requests: 0,
      promptTokens: 0,
      completionTokens: 0,
      cachedTokens: 0,
      cacheSavings: 0,
      credits: 0,
    };
    for (const r of data) {
      totals.requests += r.requests;
      totals.promptTokens += r.promptTokens;
      totals.completionTokens += r.completionTokens;
      totals.cachedTokens += r.cachedTokens;
      totals.cacheSavings += r.cacheSavings;
      totals.credits += r.credits;
    }
    return { from, to, groupBy, timezone, data, totals };
  }

  /** As `usage`, for an admin reading any user: USER_NOT_FOUND (404) for an unknown id. */
  async usageOf(
    userId: string,
    q: { from?: string; to?: string; groupBy?: UsageGroup },
  ): Promise<UsageStatsDto> {
    const [found] = await this.dataSource.query(USER_EXISTS_SQL, [userId]);
    if (!found) throw new AppError(UsersErrorCode.USER_NOT_FOUND, 'User not found');
    return this.usage(userId, q);
  }
}

/**
 * The local days `from`..`to` (inclusive, `YYYY-MM-DD` in `timeZone`) a usage query asks for:
 * `to` defaults to today at `now`, `from` to 29 days before `to`. Throws VALIDATION_FAILED (400)
 * when `from` is after `to` or the range is over 366 days.
 */
export function usageRange(
  q: { from?: string; to?: string },
  now: Date,
  timeZone: string,
): { from: string; to: string } {
  const to = q.to ?? localDate(now, timeZone);
  const from = q.from ?? dateOf(dayNumber(to) - (DEFAULT_USAGE_DAYS - 1));
  const days = dayNumber(to) - dayNumber(from) + 1;
  if (days < 1) throw new AppError(CommonErrorCode.VALIDATION_FAILED, 'from must not be after to');
  if (days > MAX_USAGE_DAYS)
    throw new AppError(CommonErrorCode.VALIDATION_FAILED, `at most ${MAX_USAGE_DAYS} days`);
  return { from, to };
}

/** The local calendar date (`YYYY-MM-DD`) of `at` in `timeZone`. */
export function localDate(at: Date, timeZone: string): string {
  return new Intl.DateTimeFormat('en-CA', {
    timeZone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
  }).format(at);
}
