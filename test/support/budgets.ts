import type { DataSource } from 'typeorm';

/** A budget counter that differs from the ledger's Σ |CONSUMPTION| over its window. */
export interface CounterMismatch {
  windowId: string;
  start: Date;
  used: number;
  ledger: number;
}

/** Every budget counter whose credits differ from the ledger's sum over its window; `[]` if none. */
export async function budgetMismatches(db: DataSource): Promise<CounterMismatch[]> {
  return db.query(`SELECT * FROM (
      SELECT c."windowId", c.start, c.used, budget_ledger_sum(b.scope, b."userId", b."teamId",
        b."keyId", c.start, budget_window_end(w.kind, b.timezone, c.start, w.hours)) AS ledger
      FROM budget_counters c JOIN budget_windows w ON w.id = c."windowId"
      JOIN budgets b ON b.id = w."budgetId") x
    WHERE x.used <> x.ledger`);
}

/**
 * Moves user `userId`'s CONSUMPTION entries, oldest first, to the instants `at`, and drops the
 * counters of the budgets that cap them: the next admission rebuilds them from the ledger.
 */
export async function moveLedger(db: DataSource, userId: string, at: string[]): Promise<void> {
  await db.query(
    `UPDATE credit_transactions t SET "createdAt" = m.at::timestamptz
     FROM (SELECT id, row_number() OVER (ORDER BY "createdAt", id) AS n FROM credit_transactions
       WHERE "userId" = $1 AND type = 'CONSUMPTION') e
     JOIN unnest($2::text[]) WITH ORDINALITY AS m(at, n) ON m.n = e.n
     WHERE t.id = e.id`,
    [userId, at],
  );
  await db.query(
    `DELETE FROM budget_counters WHERE "windowId" IN (SELECT w.id FROM budget_windows w
       JOIN budgets b ON b.id = w."budgetId" WHERE b."userId" = $1)`,
    [userId],
  );
}
