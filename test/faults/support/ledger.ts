/** One user's money: balance, open holds and Σ ledger, which must satisfy credits + held = ledger. */
export interface Books {
  id: string;
  credits: number;
  held: number;
  ledger: number;
}

type Query = <T>(sql: string, params?: unknown[]) => Promise<T[]>;

/** Every user's books, read in one statement (one snapshot). */
export function booksOfAll(query: Query): Promise<Books[]> {
  return query<Books>(
    `SELECT u.id, u.credits,
       COALESCE((SELECT SUM(h.amount) FROM credit_holds h WHERE h."userId" = u.id), 0)::int AS held,
       COALESCE((SELECT SUM(t.amount) FROM credit_transactions t WHERE t."userId" = u.id), 0)::int AS ledger
     FROM users u ORDER BY u.id`,
  );
}

/** Users whose books do not balance (should be none, at every commit). */
export async function unbalanced(query: Query): Promise<Books[]> {
  return (await booksOfAll(query)).filter((b) => b.credits + b.held !== b.ledger);
}

/** References recorded more than once (the unique index should make this impossible). */
export function duplicateReferences(query: Query): Promise<{ reference: string; n: number }[]> {
  return query(
    `SELECT reference, count(*)::int AS n FROM credit_transactions
     WHERE reference IS NOT NULL GROUP BY reference HAVING count(*) > 1`,
  );
}

/**
 * (user | key, local day) pairs whose day counter (`daily_consumption`, `daily_key_consumption`)
 * differs from the ledger's Σ |CONSUMPTION| of that day in `tz` (should be none, at every commit).
 */
export function countersOffLedger(
  query: Query,
  tz = process.env.APP_TIMEZONE || 'UTC',
): Promise<{ owner: string; day: string; counter: number | null; ledger: number | null }[]> {
  const compare = (counters: string, owner: string) => `
    SELECT COALESCE(l.owner, c.${owner})::text AS owner, COALESCE(l.day, c.day)::text AS day,
      c.credits AS counter, l.credits AS ledger
    FROM (SELECT ${owner} AS owner, ("createdAt" AT TIME ZONE $1)::date AS day,
            -SUM(amount)::int AS credits
          FROM credit_transactions WHERE type = 'CONSUMPTION' AND ${owner} IS NOT NULL
          GROUP BY 1, 2 HAVING SUM(amount) <> 0) l
    FULL JOIN ${counters} c ON c.${owner} = l.owner AND c.day = l.day
    WHERE c.credits IS DISTINCT FROM l.credits`;
  return query(
    `${compare('daily_consumption', '"userId"')} UNION ALL ${compare('daily_key_consumption', '"keyId"')}`,
    [tz],
  );
}
