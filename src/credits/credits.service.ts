import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { AppError, ErrorCode } from '../common/errors/app-error';
import type { CreditTransactionType } from './credit-transaction.entity';

/**
 * The only writer of `users.credits`. Every change runs in one transaction with its ledger row
 * (`credit_transactions`), so for every user `credits = Σ amount` at every commit, and a CHECK
 * constraint keeps `credits ≥ 0`. Methods take an optional EntityManager to join a caller's
 * transaction (e.g. sign-up).
 */
@Injectable()
export class CreditsService {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * Adds `amount` (positive integer credits) with a ledger entry of `type`. Idempotent on
   * `reference`: a second grant with the same reference changes nothing and returns false.
   */
  async grant(
    userId: string,
    amount: number,
    type: Extract<CreditTransactionType, 'PURCHASE' | 'BONUS' | 'ADJUSTMENT'>,
    description: string,
    reference: string | null = null,
    manager?: EntityManager,
  ): Promise<boolean> {
    assertPositiveInteger(amount);
    return this.inTransaction(manager, async (m) => {
      const inserted = await returning<{ id: string }>(
        m,
        `INSERT INTO credit_transactions ("userId", amount, type, description, reference)
         VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (reference) WHERE reference IS NOT NULL DO NOTHING
         RETURNING id`,
        [userId, amount, type, description, reference],
      );
      if (inserted.length === 0) return false;
      await this.addToBalance(m, userId, amount);
      return true;
    });
  }

  /**
   * Consumes `amount` credits (spec AI rule 4): a conditional decrement plus a CONSUMPTION entry
   * with a negative amount. Returns the new balance.
   * Throws AppError USER_NOT_FOUND (404) or INSUFFICIENT_CREDITS (402, with `required`, `balance`).
   */
  async consume(
    userId: string,
    amount: number,
    description: string,
    manager?: EntityManager,
  ): Promise<number> {
    if (!Number.isInteger(amount) || amount < 0)
      throw new RangeError(`invalid credit amount: ${amount}`);
    return this.inTransaction(manager, async (m) => {
      const rows = await returning<{ credits: number }>(
        m,
        `UPDATE users SET credits = credits - $2, "updatedAt" = now()
         WHERE id = $1 AND credits >= $2 RETURNING credits`,
        [userId, amount],
      );
      if (rows.length === 0) {
        const balance = await this.balance(userId, m);
        throw new AppError(ErrorCode.INSUFFICIENT_CREDITS, 'Insufficient credits', {
          required: amount,
          balance,
        });
      }
      if (amount > 0) await this.insertEntry(m, userId, -amount, 'CONSUMPTION', description);
      return rows[0].credits;
    });
  }

  /**
   * Sets the balance to `target` (non-negative integer) with one ADJUSTMENT entry of the
   * difference; no entry when nothing changes. Throws USER_NOT_FOUND.
   */
  async adjustTo(
    userId: string,
    target: number,
    description: string,
    manager?: EntityManager,
  ): Promise<void> {
    if (!Number.isInteger(target) || target < 0)
      throw new RangeError(`invalid credit balance: ${target}`);
    await this.inTransaction(manager, async (m) => {
      const rows: { credits: number }[] = await m.query(
        'SELECT credits FROM users WHERE id = $1 FOR UPDATE',
        [userId],
      );
      if (rows.length === 0) throw new AppError(ErrorCode.USER_NOT_FOUND, 'User not found');
      const difference = target - rows[0].credits;
      if (difference === 0) return;
      await this.insertEntry(m, userId, difference, 'ADJUSTMENT', description);
      await this.addToBalance(m, userId, difference);
    });
  }

  /** Current balance in credits. Throws USER_NOT_FOUND. */
  async balance(userId: string, manager?: EntityManager): Promise<number> {
    const rows: { credits: number }[] = await (manager ?? this.dataSource.manager).query(
      'SELECT credits FROM users WHERE id = $1',
      [userId],
    );
    if (rows.length === 0) throw new AppError(ErrorCode.USER_NOT_FOUND, 'User not found');
    return rows[0].credits;
  }

  private async addToBalance(m: EntityManager, userId: string, amount: number): Promise<void> {
    const rows = await returning<{ id: string }>(
      m,
      `UPDATE users SET credits = credits + $2, "updatedAt" = now() WHERE id = $1 RETURNING id`,
      [userId, amount],
    );
    if (rows.length === 0) throw new AppError(ErrorCode.USER_NOT_FOUND, 'User not found');
  }

  private insertEntry(
    m: EntityManager,
    userId: string,
    amount: number,
    type: CreditTransactionType,
    description: string,
  ): Promise<unknown> {
    return m.query(
      'INSERT INTO credit_transactions ("userId", amount, type, description) VALUES ($1, $2, $3, $4)',
      [userId, amount, type, description.slice(0, 500)],
    );
  }

  private inTransaction<T>(
    manager: EntityManager | undefined,
    work: (m: EntityManager) => Promise<T>,
  ): Promise<T> {
    return manager ? work(manager) : this.dataSource.transaction(work);
  }
}

function assertPositiveInteger(amount: number): void {
  if (!Number.isInteger(amount) || amount <= 0)
    throw new RangeError(`credit amount must be a positive integer: ${amount}`);
}

/**
 * Rows of an INSERT/UPDATE … RETURNING. TypeORM answers UPDATE and DELETE with
 * `[rows, affectedCount]` but INSERT with `rows`; this reads both the same way.
 */
async function returning<T>(m: EntityManager, sql: string, params: unknown[]): Promise<T[]> {
  const result: unknown = await m.query(sql, params);
  if (
    Array.isArray(result) &&
    result.length === 2 &&
    Array.isArray(result[0]) &&
    typeof result[1] === 'number'
  ) {
    return result[0] as T[];
  }
  return result as T[];
}
