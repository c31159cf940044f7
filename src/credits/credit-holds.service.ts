import { Injectable, Logger, OnApplicationShutdown, OnApplicationBootstrap } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { AppError, ErrorCode } from '../common/errors/app-error';
import type { AppConfig } from '../config/app.config';
import { returning } from './sql';

export interface OpenHold {
  id: string;
  userId: string;
  /** Credits reserved. */
  amount: number;
  requestId: string;
}

export interface Settlement {
  /** Credits consumed (the CONSUMPTION entry is `-charged`). */
  charged: number;
  /** Credits of the actual cost that the balance could not cover (0 normally). */
  shortfall: number;
}

/**
 * Holds: credits reserved before an AI call so parallel requests cannot overspend
 * (architecture "credits"). `hold` is one conditional UPDATE plus a row in `credit_holds`;
 * `settle` and `release` delete that row in the same transaction as the balance change, so
 * `credits + Σ open holds = Σ ledger` at every commit.
 */
@Injectable()
export class CreditHoldsService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(CreditHoldsService.name);
  private timer?: NodeJS.Timeout;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly config: ConfigService<AppConfig, true>,
  ) {}

  /**
   * Reserves `amount` credits (positive integer) for `requestId`, expiring after
   * HOLD_TTL_SECONDS. Throws INSUFFICIENT_CREDITS (402, with `required` and `balance`) or
   * USER_NOT_FOUND.
   */
  async hold(userId: string, amount: number, requestId: string): Promise<OpenHold> {
    if (!Number.isInteger(amount) || amount <= 0) throw new RangeError(`invalid hold: ${amount}`);
    const ttl = this.config.get('credits', { infer: true }).holdTtlSeconds;
    // One statement: the conditional decrement and the hold row commit together or not at all.
    const [hold] = await returning<OpenHold>(
      this.dataSource.manager,
      `WITH taken AS (
         UPDATE users SET credits = credits - $2 WHERE id = $1 AND credits >= $2 RETURNING id
       )
       INSERT INTO credit_holds ("userId", amount, "requestId", "expiresAt")
       SELECT id, $2, $3, now() + make_interval(secs => $4) FROM taken
       RETURNING id, "userId", amount, "requestId"`,
      [userId, amount, requestId, ttl],
    );
    if (hold) return hold;
    const [row] = await this.dataSource.query('SELECT credits FROM users WHERE id = $1', [userId]);
    if (!row) throw new AppError(ErrorCode.USER_NOT_FOUND, 'User not found');
    throw new AppError(ErrorCode.INSUFFICIENT_CREDITS, 'Insufficient credits', {
      required: amount,
      balance: row.credits,
    });
  }

  /**
   * Settles a hold: deletes it, consumes `actualCost` credits with one CONSUMPTION entry
   * (reference `consumption:<requestId>`, unique) and returns the rest. Idempotent: a second
   * settle of the same request charges nothing more. When the cost exceeds the hold (the prompt
   * estimate undercounted), the difference is taken from the balance down to 0 and any
   * shortfall is named in the entry's description.
   */
  async settle(hold: OpenHold, actualCost: number, description: string): Promise<Settlement> {
    if (!Number.isInteger(actualCost) || actualCost < 0)
      throw new RangeError(`invalid cost: ${actualCost}`);
    const reference = `consumption:${hold.requestId}`;
    const desc = description.slice(0, 500);
    // Usual case in one atomic statement: the hold covers the cost. The DELETE only matches
    // then, so any other case (cost above the hold, hold already settled or swept) changes
    // nothing here and takes the transaction below.
    const [fast] = await returning<{ charged: number }>(
      this.dataSource.manager,
      `WITH h AS (
         DELETE FROM credit_holds WHERE id = $1 AND amount >= $2 RETURNING "userId", amount
       ), u AS (
         UPDATE users SET credits = credits + (h.amount - $2) FROM h WHERE users.id = h."userId"
         RETURNING users.id
       )
       INSERT INTO credit_transactions ("userId", amount, type, description, reference)
       SELECT u.id, -$2::int, 'CONSUMPTION', $3, $4 FROM u
       RETURNING -amount AS charged`,
      [hold.id, actualCost, desc, reference],
    );
    if (fast) return { charged: fast.charged, shortfall: 0 };
    return this.dataSource.transaction(async (m) => {
      const held = await this.deleteHold(m, hold.id);
      const [done] = await m.query('SELECT amount FROM credit_transactions WHERE reference = $1', [
        reference,
      ]);
      if (done) return { charged: -done.amount, shortfall: 0 };
      const [user] = await m.query('SELECT credits FROM users WHERE id = $1 FOR UPDATE', [
        hold.userId,
      ]);
      if (!user) return { charged: 0, shortfall: actualCost }; // account deleted meanwhile
      const extra = actualCost - held;
      const fromBalance = extra > 0 ? Math.min(extra, user.credits) : extra; // < 0: returned
      const charged = held + fromBalance;
      const shortfall = actualCost - charged;
      if (fromBalance !== 0) {
        await m.query('UPDATE users SET credits = credits - $2 WHERE id = $1', [
          hold.userId,
          fromBalance,
        ]);
      }
      const note =
        shortfall > 0 ? ` (shortfall of ${shortfall} credits not covered by the balance)` : '';
      await m.query(
        `INSERT INTO credit_transactions ("userId", amount, type, description, reference)
         VALUES ($1, $2, 'CONSUMPTION', $3, $4)`,
        [hold.userId, -charged, (description + note).slice(0, 500), reference],
      );
      return { charged, shortfall };
    });
  }

  /** Releases a hold with nothing charged (the call failed). Safe to call twice. */
  async release(hold: OpenHold): Promise<void> {
    await this.dataSource.transaction(async (m) => {
      const held = await this.deleteHold(m, hold.id);
      if (held > 0)
        await m.query('UPDATE users SET credits = credits + $2 WHERE id = $1', [hold.userId, held]);
    });
  }

  /**
   * Returns the credits of holds past their expiry (left by a crashed process) in one statement;
   * `SKIP LOCKED` lets every instance run it at once. Returns the number of holds swept.
   */
  async sweepExpiredHolds(): Promise<number> {
    const rows = await returning<{ id: string }>(
      this.dataSource.manager,
      `WITH expired AS (
         SELECT id FROM credit_holds WHERE "expiresAt" < now()
         ORDER BY "expiresAt" LIMIT 1000 FOR UPDATE SKIP LOCKED
       ), swept AS (
         DELETE FROM credit_holds h USING expired e WHERE h.id = e.id RETURNING h."userId", h.amount
       ), totals AS (
         SELECT "userId", SUM(amount)::int AS amount, COUNT(*)::int AS holds FROM swept GROUP BY "userId"
       )
       UPDATE users u SET credits = u.credits + t.amount FROM totals t WHERE u.id = t."userId"
       RETURNING u.id, t.holds`,
      [],
    );
    const swept = rows.reduce((n, r) => n + (r as unknown as { holds: number }).holds, 0);
    if (swept) this.logger.warn(`Returned ${swept} expired credit holds`);
    return swept;
  }

  /** Credits currently held for the user. */
  async heldBy(userId: string, manager?: EntityManager): Promise<number> {
    const [row] = await (manager ?? this.dataSource.manager).query(
      'SELECT COALESCE(SUM(amount), 0)::int AS held FROM credit_holds WHERE "userId" = $1',
      [userId],
    );
    return row.held;
  }

  onApplicationBootstrap(): void {
    const every = this.config.get('credits', { infer: true }).holdSweepIntervalMs;
    this.timer = setInterval(() => {
      this.sweepExpiredHolds().catch((err: Error) =>
        this.logger.error(`Hold sweep failed: ${err.message}`),
      );
    }, every);
    this.timer.unref();
  }

  onApplicationShutdown(): void {
    clearInterval(this.timer);
  }

  private async deleteHold(m: EntityManager, id: string): Promise<number> {
    const [row] = await returning<{ amount: number }>(
      m,
      'DELETE FROM credit_holds WHERE id = $1 RETURNING amount',
      [id],
    );
    return row?.amount ?? 0;
  }
}
