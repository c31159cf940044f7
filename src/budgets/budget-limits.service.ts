import { Inject, Injectable } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { Clock } from '../common/clock/clock';
import type { SessionUser } from '../common/auth/session-user';
import { AppError, CommonErrorCode } from '../common/errors/app-error';
import { appSettingsConfig } from '../config/app-settings.config';
import { CreditsUsageService } from '../credits/credits-usage.service';
import { ApiKeysService } from '../keys/api-keys.service';
import { TeamsService } from '../teams/teams.service';
import type { WindowKind, WindowState } from './budget.types';
import { CALLER_WINDOWS_SQL, KEY_USAGE_SQL, KEY_WINDOWS_SQL, NEAR_LIMIT_SQL } from './budgets.sql';

/** One window as the "what is left" answers give it; credits are integers. */
export interface Limit {
  scope: WindowState['scope'] | 'plan';
  scopeId: string;
  teamId: string | null;
  window: WindowKind;
  hours: number | null;
  limit: number;
  used: number;
  held: number;
  /** limit − used − held, never below 0. */
  remaining: number;
  /** ISO time of the reset; null for `total` and for an `hours` window with no session open. */
  resetsAt: string | null;
  /** The window's projected total at the rate since it started; null when it cannot reset. */
  pace: number | null;
}

/** GET /v1/key's numbers besides the windows. */
export interface KeyInfo {
  label: string;
  /** Credits the key consumed: ever, and in today's, this week's and this month's window. */
  usage: { total: number; day: number; week: number; month: number };
  /** The key's tightest window (least remaining), if it has a budget. */
  tightest: Limit | null;
  windows: Limit[];
}

/**
 * What is left: every window that applies to a caller (their user budget, and the team and
 * member budgets of their teams, then the plan's daily limit), to an API key, or (admins) every
 * window near its limit. Reads only: a counter missing is the ledger's sum, nothing is written.
 */
@Injectable()
export class BudgetLimitsService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly clock: Clock,
    @Inject(appSettingsConfig.KEY) private readonly app: ConfigType<typeof appSettingsConfig>,
    private readonly teams: TeamsService,
    private readonly keys: ApiKeysService,
    private readonly usage: CreditsUsageService,
  ) {}

  /** The caller's windows: user, team, member budgets, then the plan (scope `plan`, `day`). */
  async forCaller(userId: string): Promise<Limit[]> {
    const now = this.clock.now();
    const teamIds = await this.teams.teamIdsOf(userId);
    const rows: WindowState[] = await this.dataSource.query(CALLER_WINDOWS_SQL, [
      now,
      userId,
      teamIds,
    ]);
    const plan = await this.usage.summary(userId);
    // The plan's daily limit (spec Limits 3), one more window of the user's.
    const planDay: Limit = {
      scope: 'plan',
      scopeId: userId,
      teamId: null,
      window: 'day',
      hours: null,
      limit: plan.dailyLimit,
      used: plan.usedToday,
      held: plan.heldCredits,
      remaining: Math.max(0, plan.dailyLimit - plan.usedToday - plan.heldCredits),
      resetsAt: plan.resetsAt,
      pace: null,
    };
    return [...rows.map((r) => toLimit(r, now)), planDay];
  }

  /**
   * The API key of the request: its label, usage and windows (its key budget, then its user's).
   * Throws FORBIDDEN without an API key.
   */
  async forKey(user: SessionUser): Promise<KeyInfo> {
    const keyId = user.apiKey?.id;
    if (!keyId)
      throw new AppError(
        CommonErrorCode.FORBIDDEN,
        'GET /v1/key describes an API key: call it with one',
      );
    const now = this.clock.now();
    const tz = this.app.timezone;
    const key = (await this.keys.list(user.id)).find((k) => k.id === keyId);
    const [[usage], rows] = await Promise.all([
      this.dataSource.query(KEY_USAGE_SQL, [keyId, now, tz]),
      this.dataSource.query(KEY_WINDOWS_SQL, [now, keyId, user.id]) as Promise<WindowState[]>,
    ]);
    const windows = rows.map((r) => toLimit(r, now));
    const own = windows.filter((w) => w.scope === 'key');
    const tightest = own.reduce<Limit | null>(
      (t, w) => (t === null || w.remaining < t.remaining ? w : t),
      null,
    );
    return { label: key ? `${key.name} (${key.prefix}…)` : keyId, usage, tightest, windows };
  }

  /** Admins: windows whose used + held is at least `ratio` of the limit, fullest first. */
  async nearLimit(ratio: number, limit: number): Promise<Limit[]> {
    const now = this.clock.now();
    const rows: WindowState[] = await this.dataSource.query(NEAR_LIMIT_SQL, [now, ratio, limit]);
    return rows.map((r) => toLimit(r, now));
  }
}

/** A window's state as a Limit at `now`, with its remaining credits and its pace. */
function toLimit(r: WindowState, now: Date): Limit {
  const start = r.start ? new Date(r.start) : null;
  const end = r.resetsAt ? new Date(r.resetsAt) : null;
  const spent = r.used + r.held;
  let pace: number | null = null;
  if (start && end && now > start)
    pace = Math.round(
      (spent * (end.getTime() - start.getTime())) / (now.getTime() - start.getTime()),
    );
  return {
    scope: r.scope,
    scopeId: r.scopeId,
    teamId: r.teamId,
    window: r.window,
    hours: r.hours,
    limit: r.limit,
    used: r.used,
    held: r.held,
    remaining: Math.max(0, r.limit - spent),
    resetsAt: end ? end.toISOString() : null,
    pace,
  };
}
