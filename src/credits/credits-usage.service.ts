import { Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { Clock } from '../common/clock/clock';
import { AppError, ErrorCode } from '../common/errors/app-error';
import type { AppConfig } from '../config/app.config';
import { dailyLimit } from './pricing';

/** GET /api/credits: balances and today's usage, in credits (integers). */
export interface CreditSummary {
  balance: number;
  plan: string;
  /** Spec Limits 3 by plan. */
  dailyLimit: number;
  /** Σ |CONSUMPTION| since local midnight in APP_TIMEZONE. */
  usedToday: number;
  /** Credits reserved by open holds. */
  heldCredits: number;
  /** Next local midnight, ISO 8601 (UTC). */
  resetsAt: string;
}

/**
 * Daily usage against the plan's limit (spec Limits 3). "Today" starts at local midnight in
 * APP_TIMEZONE, computed by PostgreSQL (DST-correct) from the injectable Clock.
 */
@Injectable()
export class CreditsUsageService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly clock: Clock,
    private readonly config: ConfigService<AppConfig, true>,
  ) {}

  /** Throws USER_NOT_FOUND. */
  async summary(userId: string): Promise<CreditSummary> {
    const tz = this.config.get('app', { infer: true }).timezone;
    const [row] = await this.dataSource.query(
      `WITH day AS (
         SELECT date_trunc('day', $2::timestamptz AT TIME ZONE $3) AT TIME ZONE $3 AS start
       )
       SELECT u.credits, u.plan,
         (SELECT COALESCE(-SUM(amount), 0)::int FROM credit_transactions ct, day
            WHERE ct."userId" = u.id AND ct.type = 'CONSUMPTION' AND ct."createdAt" >= day.start
              AND ct."createdAt" < day.start + interval '1 day') AS "usedToday",
         (SELECT COALESCE(SUM(amount), 0)::int FROM credit_holds h WHERE h."userId" = u.id) AS held,
         (SELECT (date_trunc('day', $2::timestamptz AT TIME ZONE $3) + interval '1 day') AT TIME ZONE $3) AS "resetsAt"
       FROM users u WHERE u.id = $1`,
      [userId, this.clock.now(), tz],
    );
    if (!row) throw new AppError(ErrorCode.USER_NOT_FOUND, 'User not found');
    return {
      balance: row.credits,
      plan: row.plan,
      dailyLimit: dailyLimit(row.plan),
      usedToday: row.usedToday,
      heldCredits: row.held,
      resetsAt: new Date(row.resetsAt).toISOString(),
    };
  }

  /**
   * Spec Limits 3: today's consumption + open holds + this request's prompt estimate must not
   * exceed the plan's daily limit. Throws DAILY_LIMIT_REACHED (429) with `dailyLimit`,
   * `usedToday` and `resetsAt`.
   */
  async assertWithinDailyLimit(userId: string, estimate: number): Promise<CreditSummary> {
    const s = await this.summary(userId);
    if (s.usedToday + s.heldCredits + estimate > s.dailyLimit) {
      throw new AppError(ErrorCode.DAILY_LIMIT_REACHED, 'Daily usage limit reached', {
        dailyLimit: s.dailyLimit,
        usedToday: s.usedToday,
        resetsAt: s.resetsAt,
      });
    }
    return s;
  }
}
