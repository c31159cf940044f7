import { Inject, Injectable } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { Clock } from '../common/clock/clock';
import { AppError } from '../common/errors/app-error';
import { UsersErrorCode } from '../users/users.errors';
import { appSettingsConfig } from '../config/app-settings.config';
import { CREDIT_SUMMARY_SQL } from './daily-usage.sql';
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
    @Inject(appSettingsConfig.KEY) private readonly app: ConfigType<typeof appSettingsConfig>,
  ) {}

  /** Throws USER_NOT_FOUND. */
  async summary(userId: string): Promise<CreditSummary> {
    const tz = this.app.timezone;
    const [row] = await this.dataSource.query(CREDIT_SUMMARY_SQL, [userId, this.clock.now(), tz]);
    if (!row) throw new AppError(UsersErrorCode.USER_NOT_FOUND, 'User not found');
    return {
      balance: row.credits,
      plan: row.plan,
      dailyLimit: dailyLimit(row.plan),
      usedToday: row.usedToday,
      heldCredits: row.held,
      resetsAt: new Date(row.resetsAt).toISOString(),
    };
  }
}
