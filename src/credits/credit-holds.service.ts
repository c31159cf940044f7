import { MetricsService } from '../metrics/metrics.service';
import { Traced } from '../telemetry/spans';
import { Injectable, Logger } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { Clock } from '../common/clock/clock';
import { AppError, ErrorCode } from '../common/errors/app-error';
import type { AppConfig } from '../config/app.config';
import {
  CONSUMPTION_BY_REFERENCE_SQL,
  DELETE_HOLD_SQL,
  HELD_BY_SQL,
  KEY_USAGE_SQL,
  LOCK_BALANCE_SQL,
  RETURN_CREDITS_SQL,
  SWEEP_SQL,
  TAKE_CREDITS_SQL,
  settleWithPartSql,
} from './credit-holds.sql';
import {
  CreditHoldStatements,
  type SettlementInput,
  settleParams,
} from './credit-hold-statements.service';
import { INSERT_CONSUMPTION_SQL } from './daily-consumption.sql';
import { collectShortfall, recordShortfall } from './credit-shortfalls';
import { preparedQuery } from '../database/prepared';
import { returning } from './sql';
import type { StatementPart } from '../database/statement-part';

// The shapes live in credit-holds.types.ts; callers keep importing them from here.
export type { Charge, OpenHold, RecordedUsage, Settlement } from './credit-holds.types';
import type { Charge, OpenHold, RecordedUsage, Settlement } from './credit-holds.types';

/** Model id, tokens of each kind and cache savings of a CONSUMPTION entry (null when unknown). */
function usageColumns(usage: RecordedUsage | undefined) {
  return {
    modelId: usage?.modelId.slice(0, 100) ?? null,
    promptTokens: usage?.promptTokens ?? null,
    completionTokens: usage?.completionTokens ?? null,
    cachedTokens: usage?.cachedTokens ?? null,
    cacheWriteTokens: usage?.cacheWriteTokens ?? null,
    reasoningTokens: usage?.reasoningTokens ?? null,
    cacheSavings: usage?.cacheSavings ?? null,
  };
}

/** The unique reference of a request's CONSUMPTION entry (a request is charged once). */
function consumptionReference(hold: OpenHold): string {
  return `consumption:${hold.requestId}`;
}

/**
 * Holds: credits reserved before an AI call so parallel requests cannot overspend
 * (architecture "credits"). `hold` is one conditional UPDATE plus a row in `credit_holds`;
 * `settle` and `release` delete that row in the same transaction as the balance change, so
 * `credits + Σ open holds = Σ ledger` at every commit.
 */
@Injectable()
export class CreditHoldsService {
  private readonly logger = new Logger(CreditHoldsService.name);

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly config: ConfigService<AppConfig, true>,
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
   * the debt and `shortfall` = the debt.
   */
  @Traced('credits.admit')
  async hold(
    userId: string,
    amount: number,
    requestId: string,
    dailyEstimate?: number,
    keyId?: string,
  ): Promise<OpenHold> {
    if (!Number.isInteger(amount) || amount <= 0) throw new RangeError(`invalid hold: ${amount}`);
    const tz = this.timezone();
    // One statement, one round trip before the upstream call (alone, or batched with the
    // admissions that arrive meanwhile): read today's usage, then the conditional decrement and
    // the hold row, which commit together or not at all. The balance condition is re-checked on
    // the locked row, so parallel requests cannot overspend. Nothing is awaited before the
    // statement is submitted: parallel calls reach it in the order they were made.
    const now = this.clock.now();
    const input = {
      userId,
      amount,
      requestId,
      dailyEstimate: dailyEstimate ?? null,
      keyId: keyId ?? null,
      now,
    };
    let row = await this.statements.admit(input);
    let owed = row?.owed ?? 0;
    if (row && !row.id && owed > 0 && this.limitsAdmit(row, dailyEstimate, keyId)) {
      // A debt from an earlier reply: collected when the balance covers it and this hold.
      const collected = await collectShortfall(this.dataSource, { userId, amount, requestId, tz });
      if (collected.admissible) row = await this.statements.admit(input);
      else owed = collected.owed;
    }
    if (!row) throw new AppError(ErrorCode.USER_NOT_FOUND, 'User not found');
    if (row.id) return { id: row.id, userId, amount, requestId, keyId };
    if (dailyEstimate !== undefined && row.used + row.held + dailyEstimate > row.dailyLimit) {
      throw new AppError(ErrorCode.DAILY_LIMIT_REACHED, 'Daily usage limit reached', {
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
        ErrorCode.KEY_DAILY_LIMIT_REACHED,
        "API key's daily credit limit reached",
        {
          dailyCreditLimit: key?.limit ?? null,
          usedToday: key?.used ?? 0,
          resetsAt: new Date(row.resetsAt).toISOString(),
        },
      );
    }
    throw new AppError(ErrorCode.INSUFFICIENT_CREDITS, 'Insufficient credits', {
      required: amount + owed,
      balance: row.balance,
      ...(owed > 0 ? { shortfall: owed } : {}),
    });
  }

  /** True when a refused admission's row passes the daily and the key's limits. */
  private limitsAdmit(
    row: { used: number; held: number; dailyLimit: number; keyAdmits: boolean },
    dailyEstimate: number | undefined,
    keyId: string | undefined,
  ): boolean {
    const daily =
      dailyEstimate === undefined || row.used + row.held + dailyEstimate <= row.dailyLimit;
    return daily && (!keyId || row.keyAdmits);
  }

  /**
   * Settles a hold: deletes it, consumes `charge.cost` credits (integer ≥ 0) with one CONSUMPTION
   * entry (reference `consumption:<requestId>`, unique) and returns the rest. Idempotent: a second
   * settle of the same request charges nothing more. When the cost exceeds the hold (the prompt
   * estimate undercounted), the difference is taken from the balance down to 0 and any shortfall
   * is named in the entry's description. `charge.usage` (model and tokens) is written as columns
   * of the same entry, by the same statement. With BATCH_STATEMENTS the statement carries the
   * settlements that arrived while the previous one was in flight (CreditHoldStatements); a row
   * that fails rejects with its own DatabaseError. Throws RangeError for a negative or fractional
   * cost.
   */
  async settle(hold: OpenHold, charge: Charge): Promise<Settlement> {
    const charged = await this.statements.settle(this.settlementInput(hold, charge));
    if (charged != null) return { charged, shortfall: 0 };
    return this.settleInTransaction(hold, charge);
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
    const params = settleParams(this.settlementInput(hold, charge), this.timezone());
    // The part numbers its placeholders after the settlement's own, whatever their count.
    const built = part(params.length + 1);
    let fast: { charged: number | null; partResult: T } | undefined;
    try {
      [fast] = await preparedQuery<{ charged: number | null; partResult: T }>(
        this.dataSource,
        settleWithPartSql(built),
        [...params, ...built.params],
      );
    } catch (err) {
      await this.settle(hold, charge);
      throw err;
    }
    const partResult = fast?.partResult as T;
    if (fast?.charged != null) return { charged: fast.charged, shortfall: 0, partResult };
    return { ...(await this.settleInTransaction(hold, charge)), partResult };
  }

  /** The usual settlement's values for `hold` and `charge`. Validates the cost first (RangeError). */
  private settlementInput(hold: OpenHold, charge: Charge): SettlementInput {
    const { cost, description, usage } = charge;
    if (!Number.isInteger(cost) || cost < 0) throw new RangeError(`invalid cost: ${cost}`);
    return {
      holdId: hold.id,
      userId: hold.userId,
      cost,
      description: description.slice(0, 500),
      reference: consumptionReference(hold),
      ...usageColumns(usage),
      keyId: hold.keyId ?? null,
    };
  }

  /** APP_TIMEZONE: the zone of "today" and of the day counters. */
  private timezone(): string {
    return this.config.get('app', { infer: true }).timezone;
  }

  /** `settle` when the hold does not cover the cost, or is gone: locks the balance first. */
  private settleInTransaction(hold: OpenHold, charge: Charge): Promise<Settlement> {
    const { cost: actualCost, description, usage } = charge;
    const reference = consumptionReference(hold);
    const counts = usageColumns(usage);

    return this.dataSource.transaction(async (m) => {
      const held = await this.deleteHold(m, hold.id);
      const [done] = await m.query(CONSUMPTION_BY_REFERENCE_SQL, [reference]);
      if (done) return { charged: Math.max(0, -done.amount), shortfall: 0 }; // never -0
      const [user] = await m.query(LOCK_BALANCE_SQL, [hold.userId]);
      if (!user) return { charged: 0, shortfall: actualCost }; // account deleted meanwhile
      const extra = actualCost - held;
      const fromBalance = extra > 0 ? Math.min(extra, user.credits) : extra; // < 0: returned
      const charged = held + fromBalance;
      const shortfall = actualCost - charged;
      if (fromBalance !== 0) await m.query(TAKE_CREDITS_SQL, [hold.userId, fromBalance]);
      const note =
        shortfall > 0 ? ` (shortfall of ${shortfall} credits not covered by the balance)` : '';
      // The shortfall is owed: flagged on the entry, and admission collects it before the next hold.
      const flag =
        shortfall > 0 ? () => recordShortfall(m, hold.userId, reference, shortfall) : null;
      await m.query(INSERT_CONSUMPTION_SQL, [
        hold.userId,
        charged,
        (description + note).slice(0, 500),
        reference,
        counts.modelId,
        counts.promptTokens,
        counts.completionTokens,
        hold.keyId ?? null,
        this.timezone(),
        counts.cachedTokens,
        counts.cacheWriteTokens,
        counts.reasoningTokens,
        counts.cacheSavings,
      ]);
      await flag?.();
      return { charged, shortfall };
    });
  }

  /** Releases a hold with nothing charged (the call failed). Safe to call twice. */
  async release(hold: OpenHold): Promise<void> {
    await this.dataSource.transaction(async (m) => {
      const held = await this.deleteHold(m, hold.id);
      if (held > 0) await m.query(RETURN_CREDITS_SQL, [hold.userId, held]);
    });
  }

  /**
   * Returns the credits of holds past their expiry (left by a crashed process) in one statement;
   * `SKIP LOCKED` lets every instance run it at once. Returns the number of holds swept.
   */
  async sweepExpiredHolds(): Promise<number> {
    const rows = await returning<{ id: string }>(this.dataSource.manager, SWEEP_SQL, []);
    const swept = rows.reduce((n, r) => n + (r as unknown as { holds: number }).holds, 0);
    if (swept) this.logger.warn(`Returned ${swept} expired credit holds`);
    this.metrics.holdsSwept.inc(swept);
    return swept;
  }

  /** Credits currently held for the user. */
  async heldBy(userId: string, manager?: EntityManager): Promise<number> {
    const [row] = await (manager ?? this.dataSource.manager).query(HELD_BY_SQL, [userId]);
    return row.held;
  }

  private async deleteHold(m: EntityManager, id: string): Promise<number> {
    const [row] = await returning<{ amount: number }>(m, DELETE_HOLD_SQL, [id]);
    return row?.amount ?? 0;
  }
}
