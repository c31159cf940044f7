import { Inject, Injectable } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { InjectDataSource } from '@nestjs/typeorm';
import { DatabaseError, type QueryResultRow } from 'pg';
import { DataSource } from 'typeorm';
import { appSettingsConfig } from '../config/app-settings.config';
import { creditsConfig } from './credits.config';
import { type BatchOutcome, NaturalBatcher } from '../database/natural-batcher';
import { preparedQuery } from '../database/prepared';
import type { SqlStatement } from '../database/sql-params';
import type { StatementPart } from '../database/statement-part';
import { MetricsService } from '../metrics/metrics.service';
import {
  admitStatement,
  settleStatement,
  settleWithPartStatement,
} from './credit-hold-statements.sql';
import type {
  AdmissionInput,
  BudgetRefusal,
  SettlementInput,
  Settlement,
} from './credit-holds.types';

export type { AdmissionInput, SettlementInput } from './credit-holds.types';

/** The admission's answer: today's usage, and the hold when one was made. */
export interface AdmissionRow {
  balance: number;
  used: number;
  held: number;
  dailyLimit: number;
  resetsAt: Date;
  /** False when the API key's own daily limit refused the hold. */
  keyAdmits: boolean;
  /** The budget window that refused the hold (`budgets_admit`); null when none did. */
  budget: BudgetRefusal | null;
  /** Credits the user still owes (credit_shortfalls); more than 0 refused the hold. */
  owed: number;
  /** The new hold's id; null when none was made. */
  id: string | null;
}

/** A batch row's answer: `ord`, and its SQLSTATE and message when that row failed. */
interface BatchRow {
  ord: number;
  errorCode: string | null;
  errorMessage: string | null;
}

/**
 * Runs the two statements of every metered call, the admission (`admit_holds`) and the
 * settlement (`settle_holds`), the PostgreSQL functions that hold their rules. A single request
 * is a batch of one, through the same statement: alone (BATCH_STATEMENTS=false: each request
 * sent at once, on its own), or with natural batching (BATCH_STATEMENTS, the default): the
 * requests that arrive while one statement is in flight go together as the next one, each
 * answered on its own. An idle service sends each request at once. The answers are the same
 * either way; a row that fails rejects its own request with a node-postgres DatabaseError
 * (`code` = SQLSTATE), the others commit.
 */
@Injectable()
export class CreditHoldStatements {
  private readonly batched: boolean;
  private readonly admissions: NaturalBatcher<AdmissionInput, AdmissionRow | undefined>;
  private readonly settlements: NaturalBatcher<SettlementInput, Settlement>;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(appSettingsConfig.KEY) private readonly app: ConfigType<typeof appSettingsConfig>,
    @Inject(creditsConfig.KEY) private readonly settings: ConfigType<typeof creditsConfig>,
    metrics: MetricsService,
  ) {
    this.batched = settings.batchStatements;
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
   * Admits one request (`admit_hold`'s rules): its row, with `id` the new hold or null when
   * refused; undefined when the user does not exist. Rejects with the statement's error.
   */
  admit(input: AdmissionInput): Promise<AdmissionRow | undefined> {
    if (this.batched) return this.admissions.submit(input);
    return alone(this.admitBatch([input]));
  }

  /**
   * Settles one request (`settle_hold`'s rules): credits charged and the shortfall. Rejects with
   * the statement's error.
   */
  settle(input: SettlementInput): Promise<Settlement> {
    if (this.batched) return this.settlements.submit(input);
    return alone(this.settleBatch([input]));
  }

  /**
   * Settles one request and runs `part` (another module's statement part, built for placeholders
   * from `$first`) in the same statement: one round trip, one commit. Rejects with the
   * statement's error, and then neither is done.
   */
  async settleWith<T>(
    input: SettlementInput,
    part: (first: number) => StatementPart<T>,
  ): Promise<Settlement & { partResult: T }> {
    const statement = settleWithPartStatement(input, this.timezone(), part);
    const rows = await this.run<BatchRow & Settlement & { partResult: T }>(statement);
    return alone(
      outcomes(1, rows, ({ charged, shortfall, partResult }) => ({
        charged,
        shortfall,
        partResult,
      })),
    );
  }

  private async admitBatch(
    items: readonly AdmissionInput[],
  ): Promise<BatchOutcome<AdmissionRow | undefined>[]> {
    const statement = admitStatement(items, {
      timezone: this.timezone(),
      holdTtlSeconds: this.settings.holdTtlSeconds,
    });
    const rows = await this.run<BatchRow & AdmissionRow & { found: boolean }>(statement);
    return outcomes(items.length, rows, (row) => {
      if (!row.found) return undefined;
      const { balance, used, held, dailyLimit, resetsAt, keyAdmits, budget, owed, id } = row;
      return { balance, used, held, dailyLimit, resetsAt, keyAdmits, budget, owed, id };
    });
  }

  private async settleBatch(
    items: readonly SettlementInput[],
  ): Promise<BatchOutcome<Settlement>[]> {
    const rows = await this.run<BatchRow & Settlement>(settleStatement(items, this.timezone()));
    return outcomes(items.length, rows, ({ charged, shortfall }) => ({ charged, shortfall }));
  }

  /** Runs a statement as a named prepared statement (planned once per pooled connection). */
  private run<T extends QueryResultRow>(statement: SqlStatement): Promise<T[]> {
    return preparedQuery<T>(this.dataSource, statement.sql, statement.params);
  }

  /** APP_TIMEZONE: the zone of "today" and of the day counters. */
  private timezone(): string {
    return this.app.timezone;
  }
}

/** The one outcome of a batch of one: its value, or its error thrown. */
async function alone<R>(flush: Promise<BatchOutcome<R>[]> | BatchOutcome<R>[]): Promise<R> {
  const [outcome] = await flush;
  if ('error' in outcome) throw outcome.error;
  return outcome.value;
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
