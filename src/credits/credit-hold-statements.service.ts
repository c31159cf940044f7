import { Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { InjectDataSource } from '@nestjs/typeorm';
import { DatabaseError } from 'pg';
import { DataSource } from 'typeorm';
import type { AppConfig } from '../config/app.config';
import { type BatchOutcome, NaturalBatcher } from '../database/natural-batcher';
import { preparedQuery } from '../database/prepared';
import { MetricsService } from '../metrics/metrics.service';
import { ADMIT_BATCH_SQL, SETTLE_BATCH_SQL } from './credit-hold-batches.sql';
import { ADMISSION_SQL, DAILY_LIMITS_JSON, SETTLE_SQL } from './credit-holds.sql';
import { DEFAULT_DAILY_LIMIT } from './pricing';

/** One request's admission, as `CreditHoldsService.hold` asks for it. */
export interface AdmissionInput {
  userId: string;
  /** Credits to hold (integer > 0). */
  amount: number;
  requestId: string;
  /** Credits of the prompt estimate checked against the plan's daily limit; null: none. */
  dailyEstimate: number | null;
  keyId: string | null;
  /** "Now" from the Clock: the day the daily limits count. */
  now: Date;
}

/** The admission's answer: today's usage, and the hold when one was made. */
export interface AdmissionRow {
  balance: number;
  used: number;
  held: number;
  dailyLimit: number;
  resetsAt: Date;
  /** False when the API key's own daily limit refused the hold. */
  keyAdmits: boolean;
  /** Credits the user owes (credit_shortfalls); more than 0 refuses the hold. */
  owed: number;
  /** The new hold's id; null when none was made. */
  id: string | null;
}

/** One request's usual settlement (SETTLE_CTES' values, validated by the caller). */
export interface SettlementInput {
  holdId: string;
  userId: string;
  /** Credits to consume (integer ≥ 0). */
  cost: number;
  /** At most 500 characters. */
  description: string;
  reference: string;
  modelId: string | null;
  promptTokens: number | null;
  completionTokens: number | null;
  keyId: string | null;
  /** Of the tokens: cache reads, cache writes, reasoning; and the cache savings (null: unknown). */
  cachedTokens: number | null;
  cacheWriteTokens: number | null;
  reasoningTokens: number | null;
  cacheSavings: number | null;
}

/** A batch row's answer: `ord`, and its SQLSTATE and message when that row failed. */
interface BatchRow {
  ord: number;
  errorCode: string | null;
  errorMessage: string | null;
}

/**
 * Runs the two statements of every metered call, the admission and the usual settlement: alone
 * (one statement per request), or with natural batching (BATCH_STATEMENTS, the default): the
 * requests that arrive while one statement is in flight go together as the next one
 * (`admit_holds`, `settle_holds`), each answered on its own. An idle service sends each request
 * at once. The answers are the same either way; a row that fails rejects its own request with a
 * node-postgres DatabaseError (`code` = SQLSTATE), the others commit.
 */
@Injectable()
export class CreditHoldStatements {
  private readonly batched: boolean;
  private readonly admissions: NaturalBatcher<AdmissionInput, AdmissionRow | undefined>;
  private readonly settlements: NaturalBatcher<SettlementInput, number | null>;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly config: ConfigService<AppConfig, true>,
    metrics: MetricsService,
  ) {
    this.batched = config.get('credits', { infer: true }).batchStatements;
    const observe = (statement: string) => (size: number) =>
      metrics.statementBatchSize.observe({ statement }, size);
    this.admissions = new NaturalBatcher((items) => this.admitBatch(items), {
      onFlush: observe('admission'),
    });
    this.settlements = new NaturalBatcher((items) => this.settleBatch(items), {
      onFlush: observe('settlement'),
    });
  }

  /**
   * Admits one request (ADMISSION_SQL's rules): its row, with `id` the new hold or null when
   * refused; undefined when the user does not exist. Rejects with the statement's error.
   */
  admit(input: AdmissionInput): Promise<AdmissionRow | undefined> {
    if (this.batched) return this.admissions.submit(input);
    return preparedQuery<AdmissionRow>(this.dataSource, ADMISSION_SQL, [
      input.userId,
      input.now,
      this.timezone(),
      input.amount,
      input.dailyEstimate,
      DAILY_LIMITS_JSON,
      DEFAULT_DAILY_LIMIT,
      input.requestId,
      this.holdTtl(),
      input.keyId,
    ]).then(([row]) => row);
  }

  /**
   * The usual settlement of one request (SETTLE_SQL's rules): credits charged, or null when the
   * hold does not cover the cost or is gone (nothing happened; the caller settles in a
   * transaction). Rejects with the statement's error.
   */
  settle(input: SettlementInput): Promise<number | null> {
    if (this.batched) return this.settlements.submit(input);
    return preparedQuery<{ charged: number | null }>(
      this.dataSource,
      SETTLE_SQL,
      settleParams(input, this.timezone()),
    ).then(([row]) => row?.charged ?? null);
  }

  private async admitBatch(
    items: readonly AdmissionInput[],
  ): Promise<BatchOutcome<AdmissionRow | undefined>[]> {
    const rows = await preparedQuery<BatchRow & AdmissionRow & { found: boolean }>(
      this.dataSource,
      ADMIT_BATCH_SQL,
      [
        items.map((i) => i.userId),
        items.map((i) => i.amount),
        items.map((i) => i.dailyEstimate),
        items.map((i) => i.requestId),
        items.map((i) => i.keyId),
        items.map((i) => i.now),
        this.timezone(),
        DAILY_LIMITS_JSON,
        DEFAULT_DAILY_LIMIT,
        this.holdTtl(),
      ],
    );
    return outcomes(items.length, rows, (row) => {
      if (!row.found) return undefined;
      const { balance, used, held, dailyLimit, resetsAt, keyAdmits, owed, id } = row;
      return { balance, used, held, dailyLimit, resetsAt, keyAdmits, owed, id };
    });
  }

  private async settleBatch(
    items: readonly SettlementInput[],
  ): Promise<BatchOutcome<number | null>[]> {
    const rows = await preparedQuery<BatchRow & { charged: number | null }>(
      this.dataSource,
      SETTLE_BATCH_SQL,
      [
        items.map((i) => i.holdId),
        items.map((i) => i.userId),
        items.map((i) => i.cost),
        items.map((i) => i.description),
        items.map((i) => i.reference),
        items.map((i) => i.modelId),
        items.map((i) => i.promptTokens),
        items.map((i) => i.completionTokens),
        items.map((i) => i.keyId),
        this.timezone(),
        items.map((i) => i.cachedTokens),
        items.map((i) => i.cacheWriteTokens),
        items.map((i) => i.reasoningTokens),
        items.map((i) => i.cacheSavings),
      ],
    );
    return outcomes(items.length, rows, (row) => row.charged);
  }

  /** APP_TIMEZONE: the zone of "today" and of the day counters. */
  private timezone(): string {
    return this.config.get('app', { infer: true }).timezone;
  }

  private holdTtl(): number {
    return this.config.get('credits', { infer: true }).holdTtlSeconds;
  }
}

/**
 * `$1…$13` of SETTLE_CTES for one settlement: hold, cost, description, reference, usage, key,
 * zone, then the kinds of tokens and the cache savings.
 */
export function settleParams(input: SettlementInput, timezone: string): unknown[] {
  return [
    input.holdId,
    input.cost,
    input.description,
    input.reference,
    input.modelId,
    input.promptTokens,
    input.completionTokens,
    input.keyId,
    timezone,
    input.cachedTokens,
    input.cacheWriteTokens,
    input.reasoningTokens,
    input.cacheSavings,
  ];
}

/** One outcome per item from a batch's rows (matched by `ord`): a value, or the row's own error. */
function outcomes<Row extends BatchRow, R>(
  count: number,
  rows: Row[],
  value: (row: Row) => R,
): BatchOutcome<R>[] {
  const byOrd = new Map(rows.map((r) => [Number(r.ord), r]));
  return Array.from({ length: count }, (_, i) => {
    const row = byOrd.get(i + 1);
    if (!row) return { error: new Error(`batch answered no row for item ${i + 1}`) };
    if (row.errorCode) return { error: rowError(row.errorCode, row.errorMessage ?? '') };
    return { value: value(row) };
  });
}

/** A failed row as node-postgres reports a failed statement, so error handling reads it alike. */
function rowError(code: string, message: string): DatabaseError {
  const err = new DatabaseError(message, 0, 'error');
  err.code = code;
  err.severity = 'ERROR';
  return err;
}
