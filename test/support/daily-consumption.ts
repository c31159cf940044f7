import type { TestApp } from './test-app';

/** The ledger's Σ |CONSUMPTION| by `owner` ("userId" or "keyId") and local day in `$1`. */
const ledgerDays = (owner: '"userId"' | '"keyId"') => `SELECT ${owner} AS owner,
    ("createdAt" AT TIME ZONE $1)::date AS day, -SUM(amount)::int AS credits
  FROM credit_transactions WHERE type = 'CONSUMPTION' AND ${owner} IS NOT NULL
  GROUP BY 1, 2 HAVING SUM(amount) <> 0`;

/** One day where a counter and the ledger disagree: credits by each (null: no row). */
export interface DayMismatch {
  owner: string;
  day: string;
  counter: number | null;
  ledger: number | null;
}

/**
 * Every (user, local day) and (key, local day) in `tz` where the day counters
 * (`daily_consumption`, `daily_key_consumption`) differ from the ledger's Σ |CONSUMPTION|;
 * `[]` when they all agree.
 */
export async function counterMismatches(
  t: TestApp,
  tz: string,
): Promise<{ users: DayMismatch[]; keys: DayMismatch[] }> {
  const compare = (counters: string, owner: '"userId"' | '"keyId"') =>
    t.db.query(
      `WITH ledger AS (${ledgerDays(owner)})
       SELECT COALESCE(l.owner, c.${owner})::text AS owner,
         to_char(COALESCE(l.day, c.day), 'YYYY-MM-DD') AS day, c.credits AS counter, l.credits AS ledger
       FROM ledger l FULL JOIN ${counters} c ON c.${owner} = l.owner AND c.day = l.day
       WHERE c.credits IS DISTINCT FROM l.credits`,
      [tz],
    ) as Promise<DayMismatch[]>;
  return {
    users: await compare('daily_consumption', '"userId"'),
    keys: await compare('daily_key_consumption', '"keyId"'),
  };
}

/**
 * Rebuilds the day counters of user `userId` (and of the keys they consumed through) from the
 * ledger, days in `tz`: for tests that move ledger entries in time with an UPDATE, which the
 * counters (written only with the entry) would not follow.
 */
export async function recountDays(t: TestApp, userId: string, tz: string): Promise<void> {
  await t.db.transaction(async (m) => {
    await m.query(`DELETE FROM daily_consumption WHERE "userId" = $1`, [userId]);
    await m.query(
      `DELETE FROM daily_key_consumption WHERE "keyId" IN (SELECT id FROM api_keys WHERE "userId" = $1)`,
      [userId],
    );
    await m.query(
      `INSERT INTO daily_consumption ("userId", day, credits)
       SELECT owner, day, credits FROM (${ledgerDays('"userId"')}) l WHERE owner = $2`,
      [tz, userId],
    );
    await m.query(
      `INSERT INTO daily_key_consumption ("keyId", day, credits)
       SELECT owner, day, credits FROM (${ledgerDays('"keyId"')}) l
       WHERE owner IN (SELECT id FROM api_keys WHERE "userId" = $2)`,
      [tz, userId],
    );
  });
}

/** Credits in user `userId`'s day counter for local `day` (YYYY-MM-DD); 0 without a row. */
export async function counterOf(t: TestApp, userId: string, day: string): Promise<number> {
  const [row] = await t.db.query(
    `SELECT credits FROM daily_consumption WHERE "userId" = $1 AND day = $2`,
    [userId, day],
  );
  return row?.credits ?? 0;
}
