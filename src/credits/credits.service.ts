import { MetricsService } from '../metrics/metrics.service';
import { generationIdOf } from './consumption-reference';
import { Inject, Injectable } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { AppError } from '../common/errors/app-error';
import { CreditsErrorCode } from './credits.errors';
import { UsersErrorCode } from '../users/users.errors';
import { appSettingsConfig } from '../config/app-settings.config';
import { CreditTransaction, type CreditTransactionType } from './credit-transaction.entity';
import { decodeCursor, pageSize, toPage } from '../common/pagination/pagination';
import {
  ADD_TO_BALANCE_SQL,
  BALANCE_SQL,
  DEBIT_SQL,
  ENTRY_BY_REFERENCE_SQL,
  INSERT_ENTRY_ONCE_SQL,
  INSERT_ENTRY_SQL,
  LOCK_BALANCE_SQL,
  REFERENCE_SEEN_SQL,
  SUM_BY_REFERENCE_PREFIX_SQL,
} from './credits.sql';
import { consumptionStatement } from './daily-consumption.sql';
import { likePrefix, returning } from './sql';

/** The account a ledger entry belongs to: a user's own balance or a team's pool. */
export type LedgerAccount = { kind: 'user'; id: string } | { kind: 'team'; id: string };

/** An entry found by its reference: its account, `amount` in credits (signed) and type. */
export interface ReferencedEntry {
  account: LedgerAccount;
  amount: number;
  type: CreditTransactionType;
}

/** One ledger entry as the API returns it; `amount` in credits, negative for consumption. */
export interface LedgerEntry {
  id: string;
  amount: number;
  type: CreditTransactionType;
  description: string;
  /** The API key a CONSUMPTION came through; null otherwise. */
  keyId: string | null;
  /** A CONSUMPTION's model and tokens as settled; null on other entries and when not reported. */
  modelId: string | null;
  promptTokens: number | null;
  completionTokens: number | null;
  /** Of promptTokens, read from the provider's prompt cache. */
  cachedTokens: number | null;
  /** Of promptTokens, written to the provider's prompt cache (every lifetime together). */
  cacheWriteTokens: number | null;
  /** Of completionTokens, the reasoning (thinking) tokens. */
  reasoningTokens: number | null;
  /** Credits the cache reads saved (CREDIT_PRICING=tokens). */
  cacheSavings: number | null;
  /** The model call a CONSUMPTION settled (`GET /v1/generations/{id}`); null on other entries. */
  generationId: string | null;
  createdAt: string;
}

/**
 * The only writer of `users.credits`. Every change runs in one transaction with its ledger row
 * (`credit_transactions`), so for every user `credits = Σ amount` at every commit, and a CHECK
 * constraint keeps `credits ≥ 0`. Methods take an optional EntityManager to join a caller's
 * transaction (e.g. sign-up).
 */
@Injectable()
export class CreditsService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly metrics: MetricsService,
    @Inject(appSettingsConfig.KEY) private readonly app: ConfigType<typeof appSettingsConfig>,
  ) {}

  /**
   * Adds `amount` (positive integer credits) with a ledger entry of `type`. Idempotent on
   * `reference`: a second grant with the same reference changes nothing and returns false.
   */
  async grant(
    userId: string,
    amount: number,
    type: Extract<
      CreditTransactionType,
      'PURCHASE' | 'BONUS' | 'ADJUSTMENT' | 'REDEMPTION' | 'PLAN_GRANT'
    >,
    description: string,
    reference: string | null = null,
    manager?: EntityManager,
  ): Promise<boolean> {
    assertPositiveInteger(amount);
    return this.inTransaction(manager, async (m) => {
      const inserted = await returning<{ id: string }>(m, INSERT_ENTRY_ONCE_SQL, [
        userId,
        amount,
        type,
        description,
        reference,
      ]);
      if (inserted.length === 0) return false;
      await this.addToBalance(m, userId, amount);
      this.metrics.creditsGrantedOf(type, amount);
      return true;
    });
  }

  /**
   * Consumes `amount` credits (spec AI rule 4): a conditional decrement plus a CONSUMPTION entry
   * with a negative amount, counted in the day counters by the same statement (it counts towards
   * the daily limit). Returns the new balance.
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
      const rows = await returning<{ credits: number }>(m, DEBIT_SQL, [userId, amount]);
      if (rows.length === 0) {
        const balance = await this.balance(userId, m);
        throw new AppError(CreditsErrorCode.INSUFFICIENT_CREDITS, 'Insufficient credits', {
          required: amount,
          balance,
        });
      }
      if (amount > 0) {
        const tz = this.app.timezone;
        const entry = { userId, charged: amount, description: description.slice(0, 500) };
        const { sql, params } = consumptionStatement(entry, tz);
        await m.query(sql, params);
      }
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
      const rows: { credits: number }[] = await m.query(LOCK_BALANCE_SQL, [userId]);
      if (rows.length === 0) throw new AppError(UsersErrorCode.USER_NOT_FOUND, 'User not found');
      const difference = target - rows[0].credits;
      if (difference === 0) return;
      await this.insertEntry(m, userId, difference, 'ADJUSTMENT', description);
      await this.addToBalance(m, userId, difference);
      if (difference > 0) this.metrics.creditsGrantedOf('ADJUSTMENT', difference);
    });
  }

  /**
   * Takes back up to `amount` credits as one REFUND entry (negative), bounded by the balance so
   * it never goes below 0; a shortfall is named in the description. Idempotent on `reference`
   * (e.g. a refund id): a second call takes nothing. Returns the credits taken. `manager` joins a
   * caller's transaction (e.g. a webhook's event record).
   */
  async clawback(
    userId: string,
    amount: number,
    reference: string,
    description: string,
    manager?: EntityManager,
  ): Promise<number> {
    assertPositiveInteger(amount);
    return this.inTransaction(manager, async (m) => {
      const [user] = await m.query(LOCK_BALANCE_SQL, [userId]);
      if (!user) throw new AppError(UsersErrorCode.USER_NOT_FOUND, 'User not found');
      const [seen] = await m.query(REFERENCE_SEEN_SQL, [reference]);
      if (seen) return 0;
      const taken = Math.min(amount, user.credits);
      const note =
        taken < amount ? ` (shortfall of ${amount - taken} credits: balance too low)` : '';
      await this.insertEntry(m, userId, -taken, 'REFUND', description + note, reference);
      if (taken > 0) await this.addToBalance(m, userId, -taken);
      return taken;
    });
  }

  /** Σ of the user's entries whose reference starts with `prefix` (e.g. all refunds of a payment). */
  async sumByReferencePrefix(
    userId: string,
    prefix: string,
    manager?: EntityManager,
  ): Promise<number> {
    const [row] = await (manager ?? this.dataSource.manager).query(SUM_BY_REFERENCE_PREFIX_SQL, [
      userId,
      likePrefix(prefix),
    ]);
    return row.total;
  }

  /**
   * The entry recorded under `reference` (e.g. the PURCHASE of a payment intent id, a user's or
   * a team pool's), with the account it belongs to; null when there is none.
   */
  async findByReference(
    reference: string,
    manager?: EntityManager,
  ): Promise<ReferencedEntry | null> {
    const [row] = await (manager ?? this.dataSource.manager).query(ENTRY_BY_REFERENCE_SQL, [
      reference,
    ]);
    if (!row) return null;
    const account: LedgerAccount = row.teamId
      ? { kind: 'team', id: row.teamId }
      : { kind: 'user', id: row.userId };
    return { account, amount: row.amount, type: row.type };
  }

  /** The user's ledger, newest first, keyset-paginated. */
  async listTransactions(
    userId: string,
    limit?: number,
    cursor?: string,
    keyId?: string,
  ): Promise<{ data: LedgerEntry[]; nextCursor: string | null }> {
    const size = pageSize(limit);
    const qb = this.dataSource
      .getRepository(CreditTransaction)
      .createQueryBuilder('t')
      .where('t.userId = :userId', { userId })
      .orderBy('t.createdAt', 'DESC')
      .addOrderBy('t.id', 'DESC')
      .take(size + 1);
    if (cursor) qb.andWhere('(t.createdAt, t.id) < (:at, :id)', decodeCursor(cursor));
    if (keyId) qb.andWhere('t.keyId = :keyId', { keyId });
    const page = toPage(await qb.getMany(), size, (t) => t.createdAt);
    return {
      data: page.data.map((t) => ({
        id: t.id,
        amount: t.amount,
        type: t.type,
        description: t.description,
        keyId: t.keyId,
        modelId: t.modelId,
        promptTokens: t.promptTokens,
        completionTokens: t.completionTokens,
        cachedTokens: t.cachedTokens,
        cacheWriteTokens: t.cacheWriteTokens,
        reasoningTokens: t.reasoningTokens,
        cacheSavings: t.cacheSavings,
        generationId: generationIdOf(t.type, t.reference),
        createdAt: t.createdAt.toISOString(),
      })),
      nextCursor: page.nextCursor,
    };
  }

  /** Current balance in credits. Throws USER_NOT_FOUND. */
  async balance(userId: string, manager?: EntityManager): Promise<number> {
    const rows: { credits: number }[] = await (manager ?? this.dataSource.manager).query(
      BALANCE_SQL,
      [userId],
    );
    if (rows.length === 0) throw new AppError(UsersErrorCode.USER_NOT_FOUND, 'User not found');
    return rows[0].credits;
  }

  private async addToBalance(m: EntityManager, userId: string, amount: number): Promise<void> {
    const rows = await returning<{ id: string }>(m, ADD_TO_BALANCE_SQL, [userId, amount]);
    if (rows.length === 0) throw new AppError(UsersErrorCode.USER_NOT_FOUND, 'User not found');
  }

  private insertEntry(
    m: EntityManager,
    userId: string,
    amount: number,
    type: CreditTransactionType,
    description: string,
    reference: string | null = null,
  ): Promise<unknown> {
    return m.query(INSERT_ENTRY_SQL, [userId, amount, type, description.slice(0, 500), reference]);
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
