import type { Client } from 'pg';
import { stopChild } from './processes';
import { proUsers } from './scenario-metering';
import { measureRun } from './service-run';
import type { BenchEnv } from './setup';
import { spendRow, type SpendConfig, type SpendRun } from './spend-report';
import type { ScenarioResult } from './types';

/** What the bench made for one user: the personal key and the team key with its controls. */
interface Payer {
  personalKey: string;
  teamKey: string;
  teamId: string;
}

/**
 * 15) The cost of spend controls that never bind: the metering workload of (12)
 * (`POST /api/ai/generate` of a new chat per request, 20 PRO users, 50 connections, provider at
 * 0 ms, one worker) through API keys, once through each user's **team key** (the user owns a
 * team whose pool pays; a member cap on the user in that team, a key budget with day and month
 * windows on the key; every limit and the pool far above what the runs spend), once through
 * each user's **personal key** (own balance, no budget). Same users, route and body: the only
 * difference is the pool and the budgets, which ride inside the admission and settlement
 * statements. Each run is its own service process; `rounds` pairs with natural batching on,
 * the order alternating, then one pair with `BATCH_STATEMENTS=false`, where every request sends
 * its own statements, so statements per request are exact.
 */
export async function spendScenario(
  env: BenchEnv,
  cfg: SpendConfig,
  log: (line: string) => void,
): Promise<ScenarioResult[]> {
  const users = await proUsers(env, 'spend', cfg.users);
  await env.db.query(`UPDATE users SET "emailVerifiedAt" = now() WHERE id = ANY($1::uuid[])`, [
    users.map((u) => u.id),
  ]);
  const payers: Payer[] = [];
  for (const [i, u] of users.entries()) {
    const api = (method: string, path: string, body: unknown) =>
      call(env.serviceOrigin, u.token, method, path, body);
    const personal = await api('POST', '/api/keys', { name: 'bench personal' });
    const team = await api('POST', '/api/teams', { name: `bench spend ${i + 1}` });
    await api('POST', `/api/teams/${team.id}/credits/transfers`, { amount: cfg.pool });
    const teamKey = await api('POST', '/api/keys', { name: 'bench team', teamId: team.id });
    const day = { window: 'day', limit: cfg.limit };
    await api('PUT', '/api/budgets', {
      scope: 'member',
      teamId: team.id,
      userId: u.id,
      windows: [day],
    });
    await api('PUT', '/api/budgets', {
      scope: 'key',
      keyId: teamKey.id,
      windows: [day, { window: 'month', limit: cfg.limit }],
    });
    payers.push({ personalKey: personal.key, teamKey: teamKey.key, teamId: team.id });
  }
  const teamIds = payers.map((p) => p.teamId);

  const run = async (controls: boolean, batching: boolean): Promise<SpendRun> => {
    const name = `${controls ? 'team keys with controls' : 'personal keys'}${batching ? '' : ', unbatched'}`;
    log(`  ${name}…`);
    const { child, origin } = await env.startVariant(name, {
      WEB_CONCURRENCY: '1',
      BATCH_STATEMENTS: String(batching),
    });
    try {
      const before = await countedBy(env.db, teamIds);
      const tokens = payers.map((p) => (controls ? p.teamKey : p.personalKey));
      const measured = await measureRun(env.db, env.pgPid, child, origin, tokens, cfg);
      const after = await countedBy(env.db, teamIds);
      return {
        ...measured,
        poolEntries: after.poolEntries - before.poolEntries,
        budgetUsed: after.budgetUsed - before.budgetUsed,
      };
    } finally {
      await stopChild(child, 20_000);
    }
  };

  await env.setReply({ generateDelayMs: 0 });
  const rows: ScenarioResult[] = [];
  for (let i = 0; i < cfg.rounds; i++) {
    const order = i % 2 === 0 ? 'without first' : 'with first';
    const first = await run(i % 2 === 1, true);
    const second = await run(i % 2 === 0, true);
    const [on, off] = i % 2 === 0 ? [second, first] : [first, second];
    rows.push(spendRow(cfg, on, off, order, await booksOf(env.db, teamIds), true));
  }
  const off = await run(false, false);
  const on = await run(true, false);
  rows.push(
    spendRow(cfg, on, off, 'BATCH_STATEMENTS=false', await booksOf(env.db, teamIds), false),
  );
  return rows;
}

/** A session call to the service that must succeed; its answer (the envelope's `data`). */
async function call(
  origin: string,
  token: string,
  method: string,
  path: string,
  body: unknown,
): Promise<Record<string, any>> {
  const res = await fetch(`${origin}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path} answered ${res.status}: ${text}`);
  const json = JSON.parse(text) as Record<string, any>;
  return (json.data ?? json) as Record<string, any>;
}

/** The pools' CONSUMPTION entries and the Σ `used` of every budget counter on the teams. */
async function countedBy(
  db: Client,
  teamIds: string[],
): Promise<{ poolEntries: number; budgetUsed: number }> {
  const { rows } = await db.query(
    `SELECT (SELECT count(*) FROM credit_transactions
              WHERE type = 'CONSUMPTION' AND "teamId" = ANY($1::uuid[]))::float8 AS "poolEntries",
            (SELECT COALESCE(sum(c.used), 0) FROM budget_counters c
              JOIN budget_windows w ON w.id = c."windowId" JOIN budgets b ON b.id = w."budgetId"
              WHERE b."teamId" = ANY($1::uuid[])
                 OR b."keyId" IN (SELECT id FROM api_keys WHERE "teamId" = ANY($1::uuid[])))::float8
              AS "budgetUsed"`,
    [teamIds],
  );
  return rows[0];
}

/**
 * The books of the bench teams once nothing is in flight: pools breaking
 * `credits + Σ holds = Σ ledger`, and budget counters that differ from the ledger's sum of
 * their window.
 */
export async function booksOf(
  db: Client,
  teamIds: string[],
): Promise<{ poolViolations: number; counterMismatches: number; counters: number }> {
  const pools = await db.query(
    `SELECT t.id FROM teams t
     WHERE t.id = ANY($1::uuid[]) AND t.credits
       + (SELECT COALESCE(sum(amount), 0) FROM credit_holds WHERE "teamId" = t.id)
       <> (SELECT COALESCE(sum(amount), 0) FROM credit_transactions WHERE "teamId" = t.id)`,
    [teamIds],
  );
  const counters = await db.query(
    `SELECT c.used, budget_ledger_sum(b.scope, b."userId", b."teamId", b."keyId", c.start,
         budget_window_end(w.kind, b.timezone, c.start, w.hours)) AS ledger
     FROM budget_counters c JOIN budget_windows w ON w.id = c."windowId"
     JOIN budgets b ON b.id = w."budgetId"
     WHERE b."teamId" = ANY($1::uuid[])
        OR b."keyId" IN (SELECT id FROM api_keys WHERE "teamId" = ANY($1::uuid[]))`,
    [teamIds],
  );
  return {
    poolViolations: pools.rowCount ?? 0,
    counterMismatches: counters.rows.filter((r) => Number(r.used) !== Number(r.ledger)).length,
    counters: counters.rowCount ?? 0,
  };
}
