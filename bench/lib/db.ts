import { Client } from 'pg';
import { type EmbeddedServer, startEmbeddedPostgres } from '../../src/database/embedded-postgres';

export const BENCH_DB = 'bench';

/** The embedded PostgreSQL of the bench (its own data directory) with a fresh `bench` database. */
export async function startBenchDatabase(
  dir: string,
  port: number,
  onLog?: (line: string) => void,
): Promise<{ server: EmbeddedServer; url: string }> {
  // pg_stat_statements counts the statements per request (scenario 12): top-level ones, the
  // round trips the service sends (a batched admission is one, whatever its function runs).
  const server = await startEmbeddedPostgres({
    dir,
    port,
    onLog,
    postgresFlags: [
      '-c',
      'shared_preload_libraries=pg_stat_statements',
      '-c',
      'pg_stat_statements.track=top',
    ],
  });
  return { server, url: await createBenchDatabase(server, BENCH_DB) };
}

/** Drops and creates database `name` on `server`, with pg_stat_statements; answers its URL. */
export async function createBenchDatabase(server: EmbeddedServer, name: string): Promise<string> {
  const admin = new Client({ connectionString: `${server.baseUrl}/postgres` });
  admin.on('error', () => undefined);
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await admin.query(`CREATE DATABASE "${name}"`);
  } finally {
    await admin.end();
  }
  const db = await connect(`${server.baseUrl}/${name}`);
  try {
    await db.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
  } finally {
    await db.end();
  }
  return `${server.baseUrl}/${name}`;
}

/** A connected client with an error handler (the server's shutdown notice must not crash us). */
export async function connect(url: string): Promise<Client> {
  const client = new Client({ connectionString: url });
  client.on('error', () => undefined);
  await client.connect();
  return client;
}

/**
 * Sets the users' balance to `credits` and their plan to PRO, with one ADJUSTMENT entry each
 * for the difference, so `credits + holds = Σ ledger` still holds.
 */
export async function raiseBalance(db: Client, userIds: string[], credits: number): Promise<void> {
  await db.query('BEGIN');
  try {
    await db.query('SELECT id FROM users WHERE id = ANY($1::uuid[]) FOR UPDATE', [userIds]);
    await db.query(
      `INSERT INTO credit_transactions ("userId", amount, type, description)
       SELECT id, $2::int - credits, 'ADJUSTMENT', 'bench: balance raised for load tests'
       FROM users WHERE id = ANY($1::uuid[]) AND credits <> $2::int`,
      [userIds, credits],
    );
    await db.query(`UPDATE users SET credits = $2, plan = 'PRO' WHERE id = ANY($1::uuid[])`, [
      userIds,
      credits,
    ]);
    await db.query('COMMIT');
  } catch (err) {
    await db.query('ROLLBACK');
    throw err;
  }
}

/**
 * Gives `userId` `chats` chats of `messages` messages each, newest chat first by `updatedAt`,
 * alternating USER (~50 characters) and ASSISTANT (~270 characters) messages.
 */
export async function seedChats(
  db: Client,
  userId: string,
  chats: number,
  messages: number,
): Promise<{ chats: number; messages: number }> {
  const c = await db.query(
    `INSERT INTO chats (title, "userId", "createdAt", "updatedAt")
     SELECT 'Bench chat ' || i, $1, now() - make_interval(hours => i), now() - make_interval(mins => i)
     FROM generate_series(1, $2::int) AS i`,
    [userId, chats],
  );
  const m = await db.query(
    `INSERT INTO messages ("chatId", "userId", role, content, "createdAt")
     SELECT c.id,
       CASE WHEN j % 2 = 1 THEN $1::uuid END,
       CASE WHEN j % 2 = 1 THEN 'USER' ELSE 'ASSISTANT' END,
       CASE WHEN j % 2 = 1 THEN 'Question ' || j || ': ' || md5(c.id::text || j)
            ELSE 'Answer ' || j || ': ' || repeat(md5(c.id::text || j) || ' ', 8) END,
       c."createdAt" + make_interval(secs => j)
     FROM chats c CROSS JOIN generate_series(1, $2::int) AS j
     WHERE c."userId" = $1`,
    [userId, messages],
  );
  return { chats: c.rowCount ?? 0, messages: m.rowCount ?? 0 };
}

/**
 * Moves the users' CONSUMPTION entries two days back, so the daily limit (PRO 10 000/day)
 * does not block the next scenario, and rebuilds their day counters (`daily_consumption`,
 * `daily_key_consumption`) from the moved entries, so counter = ledger per day still holds.
 * Amounts are unchanged, so the ledger invariant holds. The service runs in UTC (APP_TIMEZONE).
 */
export async function resetDailyUsage(db: Client, userIds: string[]): Promise<void> {
  const days = (owner: string) => `SELECT ${owner}, ("createdAt" AT TIME ZONE 'UTC')::date,
      -SUM(amount)::int FROM credit_transactions
    WHERE type = 'CONSUMPTION' AND ${owner} IS NOT NULL AND "userId" = ANY($1::uuid[])
    GROUP BY 1, 2 HAVING SUM(amount) <> 0`;
  const keys = `SELECT id FROM api_keys WHERE "userId" = ANY($1::uuid[])`;
  await db.query('BEGIN');
  try {
    await db.query(
      `UPDATE credit_transactions SET "createdAt" = "createdAt" - interval '2 days'
       WHERE type = 'CONSUMPTION' AND "userId" = ANY($1::uuid[])`,
      [userIds],
    );
    await db.query('DELETE FROM daily_consumption WHERE "userId" = ANY($1::uuid[])', [userIds]);
    await db.query(`DELETE FROM daily_key_consumption WHERE "keyId" IN (${keys})`, [userIds]);
    await db.query(`INSERT INTO daily_consumption ${days('"userId"')}`, [userIds]);
    await db.query(`INSERT INTO daily_key_consumption ${days('"keyId"')}`, [userIds]);
    await db.query('COMMIT');
  } catch (err) {
    await db.query('ROLLBACK');
    throw err;
  }
}

/**
 * Gives each user `n` CONSUMPTION entries dated today, of 0 credits each so the PRO daily limit
 * is not reached: an admission that summed the day's ledger would read them all, one that reads
 * the day counter reads one row. Amounts of 0 keep the ledger invariant and the counters as
 * they are.
 */
export async function seedDayOfRequests(db: Client, userIds: string[], n: number): Promise<void> {
  await db.query(
    `INSERT INTO credit_transactions ("userId", amount, type, description, "modelId",
       "promptTokens", "completionTokens")
     SELECT u, 0, 'CONSUMPTION', 'bench: an earlier request today', 'gpt-4o-mini', 0, 0
     FROM unnest($1::uuid[]) u, generate_series(1, $2::int)`,
    [userIds, n],
  );
  await db.query('ANALYZE credit_transactions');
}

/**
 * Cumulative counters of the bench database: commits (`pg_stat_database.xact_commit`) and
 * statements (Σ `pg_stat_statements.calls`, top-level statements; NaN without the extension).
 * `pg_stat_database` is flushed by each backend at most once a second, so callers read it
 * after the load has been quiet for longer than that.
 */
export async function dbCounters(db: Client): Promise<{ commits: number; statements: number }> {
  const { rows } = await db.query(
    `SELECT (SELECT xact_commit FROM pg_stat_database WHERE datname = current_database())::float8
       AS commits,
     (SELECT sum(calls) FROM pg_stat_statements
       WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database()))::float8
       AS statements`,
  );
  return { commits: rows[0].commits, statements: rows[0].statements ?? NaN };
}

/** The statements of the bench database by total execution time since the last reset. */
export async function topStatements(
  db: Client,
  limit: number,
): Promise<{ query: string; calls: number; totalMs: number }[]> {
  const { rows } = await db.query(
    `SELECT left(regexp_replace(query, '\\s+', ' ', 'g'), 120) AS query, calls::float8 AS calls,
       total_exec_time::float8 AS "totalMs"
     FROM pg_stat_statements
     WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
     ORDER BY total_exec_time DESC LIMIT $1`,
    [limit],
  );
  return rows;
}

/** Top-level calls so far of each statement of the bench database, by its text (90 characters). */
export async function statementCalls(db: Client): Promise<Map<string, number>> {
  const { rows } = await db.query(
    `SELECT left(regexp_replace(query, '\\s+', ' ', 'g'), 90) AS query, sum(calls)::float8 AS calls
     FROM pg_stat_statements
     WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
     GROUP BY 1`,
  );
  return new Map(rows.map((r: { query: string; calls: number }) => [r.query, r.calls]));
}

/** Empties pg_stat_statements (the top statements then cover one run). */
export async function resetStatements(db: Client): Promise<void> {
  await db.query('SELECT pg_stat_statements_reset()');
}

/** Users breaking `credits + Σ open holds = Σ ledger`, and the number of open holds. */
export async function checkLedger(db: Client): Promise<{ violations: number; openHolds: number }> {
  const bad = await db.query(
    `SELECT u.id FROM users u
     LEFT JOIN (SELECT "userId", SUM(amount) s FROM credit_holds GROUP BY 1) h ON h."userId" = u.id
     LEFT JOIN (SELECT "userId", SUM(amount) s FROM credit_transactions GROUP BY 1) t ON t."userId" = u.id
     WHERE u.credits + COALESCE(h.s, 0) <> COALESCE(t.s, 0)`,
  );
  const holds = await db.query('SELECT count(*)::int AS n FROM credit_holds');
  return { violations: bad.rowCount ?? 0, openHolds: holds.rows[0].n };
}

/**
 * Waits until no hold is open: requests still in flight when a load run ended (autocannon closes
 * its sockets mid-request) settle within about one provider delay. Gives up after `timeoutMs`;
 * holds still open then are a leak, not traffic. Returns them and the time waited (ms).
 */
export async function waitForSettled(
  db: Client,
  timeoutMs = 15_000,
): Promise<{ openHolds: number; waitedMs: number }> {
  const start = Date.now();
  for (;;) {
    const { rows } = await db.query('SELECT count(*)::int AS n FROM credit_holds');
    const waitedMs = Date.now() - start;
    if (rows[0].n === 0 || waitedMs >= timeoutMs) return { openHolds: rows[0].n, waitedMs };
    await new Promise((r) => setTimeout(r, 100));
  }
}
