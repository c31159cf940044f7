import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { SessionUser } from '../common/auth/session-user';
import { AppError, CommonErrorCode } from '../common/errors/app-error';
import type { ConfigType } from '@nestjs/config';
import { appSettingsConfig } from '../config/app-settings.config';
import { ApiKeysService } from '../keys/api-keys.service';
import { TeamsService } from '../teams/teams.service';
import { hasTeamRole } from '../teams/team-role';
import { AuditService } from '../audit/audit.service';
import type { Budget, BudgetScope, BudgetWindow } from './budget.types';
import {
  BUDGET_BY_ID_SQL,
  DELETE_BUDGET_SQL,
  KNOWN_TIMEZONE_SQL,
  setBudgetStatement,
  VISIBLE_BUDGETS_SQL,
} from './budgets.sql';

/** What a caller asks to set: the scope, its owner ids, and the budget's settings. */
export interface SetBudget {
  scope: BudgetScope;
  userId?: string;
  teamId?: string;
  keyId?: string;
  /** IANA zone of the day, week and month windows; default APP_TIMEZONE. */
  timezone?: string;
  /** Soft thresholds, percent (1–99), each at most once. */
  thresholds?: number[];
  /** `hours`: an `hours` window's length (required there, ignored elsewhere). */
  windows: (Omit<BudgetWindow, 'hours'> & { hours?: number | null })[];
}

const forbidden = (message: string) => new AppError(CommonErrorCode.FORBIDDEN, message);
const invalid = (message: string) => new AppError(CommonErrorCode.VALIDATION_FAILED, message);

/**
 * Budgets: who may set which, and their storage (migration Budgets; the admission and the
 * settlement statements of credits enforce and count them). A user sets budgets on themselves
 * and on their own keys; a team's OWNERs and ADMINs on the team and each member; an admin any.
 */
@Injectable()
export class BudgetsService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(appSettingsConfig.KEY) private readonly app: ConfigType<typeof appSettingsConfig>,
    private readonly teams: TeamsService,
    private readonly keys: ApiKeysService,
    private readonly audit: AuditService,
  ) {}

  /**
   * Creates or replaces the budget of `input.scope` and its owner (`userId` for user, default
   * the caller; `teamId` for team; `teamId` + `userId` for member; `keyId` for key), checked and
   * written in one statement. Throws VALIDATION_FAILED (400: ids missing for the scope, an
   * unknown time zone, two windows of one kind and length), FORBIDDEN (403: someone else's
   * user, key or team; a member budget for a non-member), NOT_FOUND (an admin naming no
   * such owner). Nothing changes on error.
   */
  async set(actor: SessionUser, input: SetBudget): Promise<Budget> {
    const owner = await this.authorize(actor, input.scope, input);
    const timezone = input.timezone ?? this.app.timezone;
    const seen = new Set(input.windows.map((w) => `${w.window}:${w.hours ?? 0}`));
    if (seen.size !== input.windows.length)
      throw invalid('windows: each kind (and length of an hours window) may appear once');
    if (new Set(input.thresholds ?? []).size !== (input.thresholds ?? []).length)
      throw invalid('thresholds: each percentage may appear once');
    if (!(await this.dataSource.query(KNOWN_TIMEZONE_SQL, [timezone])).length)
      throw invalid(`timezone: unknown time zone ${timezone}`);
    const statement = setBudgetStatement({
      scope: input.scope,
      ...owner,
      timezone,
      thresholds: [...(input.thresholds ?? [])].sort((a, b) => a - b),
      windows: input.windows.map((w) => ({
        ...w,
        hours: w.window === 'hours' ? (w.hours ?? null) : null,
      })),
    });
    const id = await this.dataSource
      .transaction(async (m) => {
        const [{ id }] = await m.query(statement.sql, statement.params);
        const details = { scope: input.scope, ...owner, windows: input.windows };
        await this.audit.record(m, {
          action: 'budget.set',
          targetType: 'budget',
          targetId: id,
          details,
        });
        return id as string;
      })
      .catch((err: { code?: string }) => {
        // An admin naming a user, team or key that does not exist (foreign key).
        if (err.code === '23503')
          throw new AppError(CommonErrorCode.NOT_FOUND, 'No such user, team or key');
        throw err;
      });
    return this.get(id);
  }

  /** The budgets the caller sets or is capped by: their own, their keys', their teams'. */
  async list(actor: SessionUser): Promise<Budget[]> {
    const keyIds = (await this.keys.list(actor.id)).map((k) => k.id);
    const managed: string[] = [];
    for (const teamId of await this.teams.teamIdsOf(actor.id)) {
      const role = await this.teams.roleOf(actor.id, teamId);
      if (role && hasTeamRole(role, 'ADMIN')) managed.push(teamId);
    }
    return (await this.dataSource.query(VISIBLE_BUDGETS_SQL, [actor.id, keyIds, managed])).map(
      toBudget,
    );
  }

  /** Deletes a budget the caller may set. Throws NOT_FOUND, FORBIDDEN. */
  async remove(actor: SessionUser, id: string): Promise<void> {
    const budget = await this.get(id);
    await this.authorize(actor, budget.scope, {
      userId: budget.userId ?? undefined,
      teamId: budget.teamId ?? undefined,
      keyId: budget.keyId ?? undefined,
    });
    await this.dataSource.transaction(async (m) => {
      await m.query(DELETE_BUDGET_SQL, [id]);
      await this.audit.record(m, { action: 'budget.delete', targetType: 'budget', targetId: id });
    });
  }

  /** One budget. Throws NOT_FOUND. */
  async get(id: string): Promise<Budget> {
    const [row] = await this.dataSource.query(BUDGET_BY_ID_SQL, [id]);
    if (!row) throw new AppError(CommonErrorCode.NOT_FOUND, 'Budget not found');
    return toBudget(row);
  }

  /** The owner ids of a budget of `scope` that `actor` may set, or the error why not. */
  private async authorize(
    actor: SessionUser,
    scope: BudgetScope,
    ids: { userId?: string; teamId?: string; keyId?: string },
  ): Promise<{ userId: string | null; teamId: string | null; keyId: string | null }> {
    const admin = actor.role === 'ADMIN';
    const need = (id: string | undefined, name: string): string => {
      if (!id) throw invalid(`${name} is required for a ${scope} budget`);
      return id;
    };
    switch (scope) {
      case 'user': {
        const userId = ids.userId ?? actor.id;
        if (userId !== actor.id && !admin) throw forbidden("Another user's budget is theirs");
        return { userId, teamId: null, keyId: null };
      }
      case 'key': {
        const keyId = need(ids.keyId, 'keyId');
        const own = (await this.keys.list(actor.id)).some((k) => k.id === keyId);
        if (!own && !admin) throw forbidden('A key budget is set by the key’s owner');
        return { userId: null, teamId: null, keyId };
      }
      case 'team':
      case 'member': {
        const teamId = need(ids.teamId, 'teamId');
        const userId = scope === 'member' ? need(ids.userId, 'userId') : null;
        const role = await this.teams.roleOf(actor.id, teamId);
        if (!admin && !(role && hasTeamRole(role, 'ADMIN')))
          throw forbidden("A team's budgets are set by its owners and admins");
        if (userId && !(await this.teams.roleOf(userId, teamId)))
          throw forbidden('A member budget is for a member of the team');
        return { userId, teamId, keyId: null };
      }
    }
  }
}

/** A row of BUDGET_COLUMNS as a Budget. */
function toBudget(row: Record<string, unknown>): Budget {
  return {
    ...(row as unknown as Budget),
    thresholds: (row.thresholds as number[]) ?? [],
    windows: row.windows as BudgetWindow[],
  };
}
