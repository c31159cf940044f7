import { MetricsService } from '../metrics/metrics.service';
import { Traced } from '../telemetry/spans';
import { HttpStatus, Inject, Injectable, Logger } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { Clock } from '../common/clock/clock';
import { AppError, CommonErrorCode } from '../common/errors/app-error';
import { CreditsErrorCode } from './credits.errors';
import { UsersErrorCode } from '../users/users.errors';
import { appSettingsConfig } from '../config/app-settings.config';
import { HELD_BY_SQL, KEY_USAGE_SQL, RELEASE_HOLD_SQL, SWEEP_SQL } from './credit-holds.sql';
import { CreditHoldStatements } from './credit-hold-statements.service';
import { preparedQuery } from '../database/prepared';
import { returning } from './sql';
import type { StatementPart } from '../database/statement-part';

// The shapes live in credit-holds.types.ts; callers keep importing them from here.
export type { Charge, OpenHold, RecordedUsage, Settlement } from './credit-holds.types';
import type {
  BudgetRefusal,
  Charge,
  LedgerColumns,
  OpenHold,
  RecordedUsage,
  Settlement,
  SettlementInput,
} from './credit-holds.types';

/**
 * The ledger columns of a settlement's CONSUMPTION entry: key, model id, tokens of each kind and
 * cache savings (null when unknown).
 */
function ledgerColumns(hold: OpenHold, usage: RecordedUsage | undefined): LedgerColumns {
  return {
    keyId: hold.keyId ?? null,
    teamId: hold.teamId ?? null,
    modelId: usage?.modelId.slice(0, 100) ?? null,
    promptTokens: usage?.promptTokens ?? null,
    completionTokens: usage?.completionTokens ?? null,
    cachedTokens: usage?.cachedTokens ?? null,
    cacheWriteTokens: usage?.cacheWriteTokens ?? null,
    reasoningTokens: usage?.reasoningTokens ?? null,
    cacheSavings: usage?.cacheSavings ?? null,
  };
}

/**
 * BUDGET_EXCEEDED for the budget window that refused: 429 for a window that resets (the filter
 * answers `Retry-After` from `resetsAt`), 402 for a `total` one; details {scope, scopeId,
 * window, limit, used, held, resetsAt} (and `teamId`, `hours` when set).
 */
export function budgetRefusal(b: BudgetRefusal): AppError {
  const { scope, scopeId, teamId, window, hours, limit, used, held } = b;
  const resetsAt = b.resetsAt ? new Date(b.resetsAt).toISOString() : null;
  const details = {
    scope,
    scopeId,
    ...(teamId ? { teamId } : {}),
    window,
    ...(hours ? { hours } : {}),
    limit,
    used,
    held,
    resetsAt,
  };
  const message = `Budget exceeded: the ${scope} budget's ${window} window allows ${limit} credits`;
  return new AppError(
    CreditsErrorCode.BUDGET_EXCEEDED,
    message,
    details,
    resetsAt ? undefined : HttpStatus.PAYMENT_REQUIRED,
  );
}

/** SQLSTATE of `team_pool_balance`: the caller is not a member of the team whose pool pays. */
const NOT_A_MEMBER = 'TM404';

/**
 * The admission's refusal of a non-member (someone else's team, a member removed or gone): 404,
 * as any team the caller does not belong to. Other errors pass unchanged.
 */
function notAMember(err: unknown): never {
  if ((err as { code?: unknown }).code === NOT_A_MEMBER)
    throw new AppError(CommonErrorCode.NOT_FOUND, 'Team not found');
  throw err;
}

/** The unique reference of a request's CONSUMPTION entry (a request is charged once). */
function consumptionReference(hold: OpenHold): string {
  return `consumption:${hold.requestId}`;
}

/**
 * Holds: credits reserved before an AI call so parallel requests cannot overspend
 * (architecture "credits"). `hold` and `settle` run the money rules, which live only in
 * PostgreSQL (`admit_hold`, `settle_hold`; a single call is a batch of one, CreditHoldStatements):
 * `hold` makes the decrement and a row in `credit_holds`; `settle` and `release` delete that row
 * in the same transaction as the balance change, so `credits + Σ open holds = Σ ledger` at every
 * commit.
 */
@Injectable()
export class CreditHoldsService {
  private readonly logger = new Logger(CreditHoldsService.name);

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(appSettingsConfig.KEY) private readonly app: ConfigType<typeof appSettingsConfig>,
    private readonly clock: Clock,
    private readonly metrics: MetricsService,
    private readonly statements: CreditHoldStatements,
  ) {}

  /**
   * Reserves `amount` credits (positive integer) for `requestId`, expiring after
   * HOLD_TTL_SECONDS. With `dailyEstimate` (credits, the prompt estimate), it also enforces spec
   * Limits 3 in the same statement: today's consumption + open holds + the estimate must not
   * exceed the plan's daily limit. Throws USER_NOT_FOUND, DAILY_LIMIT_REACHED (429, with
   * `dailyLimit`, `usedToday`, `resetsAt`; checked first) or INSUFFICIENT_CREDITS (402, with
   * `required` and `balance`). With `keyId` (a request through a personal API key), the
   * key's `dailyCreditLimit` is checked in the same statement against the whole hold; over it →
   * KEY_DAILY_LIMIT_REACHED (429, with `dailyCreditLimit`, `usedToday`, `resetsAt`). A user who
   * owes a shortfall (an earlier reply's usage beyond its hold and the balance) is admitted only
   * when the balance covers the debt plus `amount`: the debt is then collected (its own
   * CONSUMPTION entry) and the hold made; else INSUFFICIENT_CREDITS with `required` = `amount` +
   * the debt and `shortfall` = the debt. With `teamId` (a call in a team's context), the team's
   * pool holds instead of the user's balance: the same statement checks that the user is a
   * member (else NOT_FOUND, 404) and INSUFFICIENT_CREDITS tells the pool's balance (`teamId` in
   * its details); the plan's daily limit and the user's debt are their own balance's and do not
   * apply, the key's limit does, and so do the team's and the member's budgets besides the key's
   * and the user's (migration Budgets): a budget window that would pass its limit (used + held +
   * `amount`) refuses first with BUDGET_EXCEEDED (429 with `resetsAt`, or 402 for a `total`
   * window; `budgetRefusal`).
   */
  @Traced('credits.admit')
  async hold(
    userId: string,
    amount: number,
    requestId: string,
    dailyEstimate?: number,
    keyId?: string,
    teamId?: string,
  ): Promise<OpenHold> {
    if (!Number.isInteger(amount) || amount <= 0) throw new RangeError(`invalid hold: ${amount}`);
    if (teamId) dailyEstimate = undefined;
    const tz = this.timezone();
    // One statement, one round trip before the upstream call (a batch of one, or batched with
    // the admissions that arrive meanwhile): `admit_hold` locks the user's row, reads today's
    // usage, collects a debt the balance covers, then makes the decrement and the hold row, which
    // commit together or not at all; so parallel requests cannot overspend. Nothing is awaited
    // before the statement is submitted: parallel calls reach it in the order they were made.
    const now = this.clock.now();
    const input = {
      userId,
      amount,
      requestId,
      dailyEstimate: dailyEstimate ?? null,
      keyId: keyId ?? null,
      teamId: teamId ?? null,
      now,
    };
    const row = await this.statements.admit(input).catch(notAMember);
    if (!row) throw new AppError(UsersErrorCode.USER_NOT_FOUND, 'User not found');
    if (row.id) return { id: row.id, userId, amount, requestId, keyId, teamId };
    if (row.budget) throw budgetRefusal(row.budget);
    if (dailyEstimate !== undefined && row.used + row.held + dailyEstimate > row.dailyLimit) {
      throw new AppError(CreditsErrorCode.DAILY_LIMIT_REACHED, 'Daily usage limit reached', {
        dailyLimit: row.dailyLimit,
        usedToday: row.used,
        resetsAt: new Date(row.resetsAt).toISOString(),
      });
    }
    if (keyId && !row.keyAdmits) {
      const [key] = await preparedQuery<{ limit: number; used: number }>(
        this.dataSource,
        KEY_USAGE_SQL,
        [keyId, now, tz],
      );
      throw new AppError(
        CreditsErrorCode.KEY_DAILY_LIMIT_REACHED,
        "API key's daily credit limit reached",
        {
          dailyCreditLimit: key?.limit ?? null,
          usedToday: key?.used ?? 0,
          resetsAt: new Date(row.resetsAt).toISOString(),
        },
      );
    }
    const owed = row.owed;
    throw new AppError(CreditsErrorCode.INSUFFICIENT_CREDITS, 'Insufficient credits', {
      required: amount + owed,
      balance: row.balance,
      ...(owed > 0 ? { shortfall: owed } : {}),
      ...(teamId
        ? { teamId, hint: { key: 'TEAM_POOL_SHORT', args: { balance: row.balance } } }
        : {}),
    });
  }

  /**
   * Settles a hold (`settle_hold`, migration SettlementRule): deletes it, consumes `charge.cost`
   * credits (integer ≥ 0) with one CONSUMPTION entry (reference `consumption:<requestId>`, unique)
   * and returns the rest. Idempotent: a second settle of the same request charges nothing more and
   * answers what the first charged. When the cost exceeds the hold (the prompt estimate
   * undercounted), or the hold is gone, the difference is taken from the balance down to 0; what
   * the balance cannot cover is the `shortfall`, named in the entry's description, set on its
   * `shortfall` column and owed (the next admission collects it). `charge.usage` (model and
   * tokens) is written as columns of the same entry, by the same statement. A single settlement
   * is a batch of one; with BATCH_STATEMENTS the statement carries the settlements that arrived
   * while the previous one was in flight (CreditHoldStatements), and a row that fails rejects with
   * its own DatabaseError. Throws RangeError for a negative or fractional cost.
   */
  async settle(hold: OpenHold, charge: Charge): Promise<Settlement> {
    return this.statements.settle(this.settlementInput(hold, charge));
  }

  /**
   * `settle`, with another module's statement part (built for placeholders from `$first`, such as
   * the saved chat exchange) run in the same statement: both commit together in one round trip,
   * and the part's result comes back typed as `partResult`. Should the statement fail, the hold is
   * settled on its own before the error is thrown: the charge never depends on the other part.
   */
  async settleWith<T>(
    hold: OpenHold,
    charge: Charge,
    part: (first: number) => StatementPart<T>,
  ): Promise<Settlement & { partResult: T }> {
    const input = this.settlementInput(hold, charge);
    try {
      return await this.statements.settleWith(input, part);
    } catch (err) {
      await this.settle(hold, charge);
      throw err;
    }
  }

  /** The settlement's row for `hold` and `charge`. Validates the cost first (RangeError). */
  private settlementInput(hold: OpenHold, charge: Charge): SettlementInput {
    const { cost, description, usage } = charge;
    if (!Number.isInteger(cost) || cost < 0) throw new RangeError(`invalid cost: ${cost}`);
    return {
      holdId: hold.id,
      userId: hold.userId,
      cost,
      description: description.slice(0, 500),
      reference: consumptionReference(hold),
      ...ledgerColumns(hold, usage),
      generation: charge.generation ?? null,
    };
  }

  /** APP_TIMEZONE: the zone of "today" and of the day counters. */
  private timezone(): string {
    return this.app.timezone;
  }

  /** Releases a hold with nothing charged (the call failed). Safe to call twice. */
  async release(hold: OpenHold): Promise<void> {
    await this.dataSource.query(RELEASE_HOLD_SQL, [hold.id]);
  }

  /**
   * Returns the credits of holds past their expiry (left by a crashed process) in one statement;
   * `SKIP LOCKED` lets every instance run it at once. Returns the number of holds swept.
   */
  async sweepExpiredHolds(): Promise<number> {
    const [{ swept }] = await returning<{ swept: number }>(this.dataSource.manager, SWEEP_SQL, []);
    if (swept) this.logger.warn(`Returned ${swept} expired credit holds`);
    this.metrics.holdsSwept.inc(swept);
    return swept;
  }

  /** Credits currently held for the user. */
  async heldBy(userId: string, manager?: EntityManager): Promise<number> {
    const [row] = await (manager ?? this.dataSource.manager).query(HELD_BY_SQL, [userId]);
    return row.held;
  }
}
