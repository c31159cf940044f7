import type { MigrationInterface, QueryRunner } from 'typeorm';
import {
  ADMIT_HOLD as PLAIN_ADMIT_HOLD,
  ADMIT_HOLDS as PLAIN_ADMIT_HOLDS,
  COLLECTED,
} from './1796843400000-AdmissionRule';
import {
  RECORD_CONSUMPTION as PLAIN_RECORD_CONSUMPTION,
  SETTLE_HOLDS as PLAIN_SETTLE_HOLDS,
} from './1796843300000-SettlementRule';
import { BUDGET_FUNCTION_SIGNATURES, BUDGET_FUNCTIONS } from './budgets/budget-functions';
import { BUDGET_TABLES as TABLES } from './budgets/budget-tables';

/**
 * Budgets: caps per API key, team member, team and user over day, week, month, `hours` (session)
 * and `total` windows, checked inside the one admission statement and counted by the one
 * settlement statement (functions in ./budgets/budget-functions.ts).
 * - Tables `budgets` (one per scope and owner), `budget_windows` (one per kind and length),
 *   `budget_counters` (credits used per window and window start), `budget_alerts` (one row per
 *   soft threshold crossed per window: the mail goes once).
 * - `credit_holds` and `credit_transactions` gain `teamId` (the team whose pool pays: the team and
 *   member budgets count its holds and entries), null without a team.
 * - `admit_hold` checks the budgets (`budgets_admit`) and records the team on the hold; its answer
 *   gains `r_budget` (the refusing budget window, or null), and so does `admit_holds`, which locks
 *   the batch's budgets after its users. `record_consumption` writes the entry's team and adds the
 *   charge to the budget counters (`budgets_record`); `settle_holds` locks a batch's budgets after
 *   its users. Each hook is one line marked `-- budgets`. `down` restores the functions of
 *   migrations SettlementRule and AdmissionRule.
 */
export class Budgets1796843500000 implements MigrationInterface {
  name = 'Budgets1796843500000';

  public async up(q: QueryRunner): Promise<void> {
    for (const sql of TABLES) await q.query(sql);
    for (const sql of BUDGET_FUNCTIONS) await q.query(sql);
    await q.query('DROP FUNCTION admit_holds(jsonb, text, jsonb, integer, integer)');
    await q.query('DROP FUNCTION admit_hold(jsonb, text, jsonb, integer, integer)');
    await q.query(ADMIT_HOLD);
    await q.query(ADMIT_HOLDS);
    await q.query(RECORD_CONSUMPTION);
    await q.query(SETTLE_HOLDS);
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query('DROP FUNCTION admit_holds(jsonb, text, jsonb, integer, integer)');
    await q.query('DROP FUNCTION admit_hold(jsonb, text, jsonb, integer, integer)');
    await q.query(PLAIN_ADMIT_HOLD);
    await q.query(PLAIN_ADMIT_HOLDS);
    await q.query(orReplace(PLAIN_RECORD_CONSUMPTION));
    await q.query(orReplace(PLAIN_SETTLE_HOLDS));
    for (const signature of BUDGET_FUNCTION_SIGNATURES) await q.query(`DROP FUNCTION ${signature}`);
    await q.query('DROP TABLE budget_alerts');
    await q.query('DROP TABLE budget_counters');
    await q.query('DROP TABLE budget_windows');
    await q.query('DROP TABLE budgets');
    await q.query('DROP INDEX "IDX_credit_transactions_team_created"');
    await q.query('DROP INDEX "IDX_credit_holds_team"');
    await q.query('ALTER TABLE credit_transactions DROP COLUMN "teamId"');
    await q.query('ALTER TABLE credit_holds DROP COLUMN "teamId"');
  }
}

const orReplace = (sql: string) => sql.replace('CREATE FUNCTION', 'CREATE OR REPLACE FUNCTION');

// admit_hold of migration AdmissionRule with the budgets: the team on the hold, and
// `budgets_admit` before the hold is made (its refusal answered as `r_budget`).
export const ADMIT_HOLD = `CREATE FUNCTION admit_hold(p_row jsonb, p_tz text, p_limits jsonb,
    p_default_limit integer, p_ttl integer,
    OUT r_found boolean, OUT r_balance integer, OUT r_used integer, OUT r_held integer,
    OUT r_daily_limit integer, OUT r_resets_at timestamptz, OUT r_key_admits boolean,
    OUT r_owed integer, OUT r_hold uuid, OUT r_budget jsonb)
  LANGUAGE plpgsql VOLATILE AS $$
  DECLARE
    v_user uuid := (p_row ->> 'userId')::uuid;
    v_amount integer := (p_row ->> 'amount')::integer;
    v_estimate integer := (p_row ->> 'dailyEstimate')::integer;
    v_request text := p_row ->> 'requestId';
    v_key uuid := (p_row ->> 'keyId')::uuid;
    v_team uuid := (p_row ->> 'teamId')::uuid; -- budgets
    v_now timestamptz := (p_row ->> 'now')::timestamptz;
    v_today date := (v_now AT TIME ZONE p_tz)::date;
  BEGIN
    r_resets_at := (date_trunc('day', v_now AT TIME ZONE p_tz) + interval '1 day') AT TIME ZONE p_tz;
    SELECT u.credits, COALESCE((p_limits ->> u.plan::text)::int, p_default_limit),
        COALESCE((SELECT dc.credits FROM daily_consumption dc
          WHERE dc."userId" = u.id AND dc.day = v_today), 0),
        (SELECT COALESCE(SUM(h.amount), 0)::int FROM credit_holds h WHERE h."userId" = u.id),
        COALESCE((SELECT s.credits FROM credit_shortfalls s WHERE s."userId" = u.id), 0)
      INTO r_balance, r_daily_limit, r_used, r_held, r_owed FROM users u WHERE u.id = v_user;
    r_found := FOUND;
    IF NOT r_found THEN
      RETURN;
    END IF;
    r_key_admits := v_key IS NULL OR api_key_admits(v_key, v_amount, v_today);
    IF r_owed > 0 AND r_key_admits AND r_balance >= v_amount + r_owed
       AND (v_estimate IS NULL OR r_used + r_held + v_estimate <= r_daily_limit) THEN
      UPDATE credit_shortfalls s SET credits = 0, "updatedAt" = now() WHERE s."userId" = v_user;
      UPDATE users u SET credits = u.credits - r_owed WHERE u.id = v_user;
      PERFORM record_consumption(jsonb_build_object('userId', v_user, 'amount', -r_owed,
        'description', '${COLLECTED}', 'reference', 'shortfall:' || v_request), p_tz);
      r_balance := r_balance - r_owed;
      r_owed := 0;
      r_used := COALESCE((SELECT dc.credits FROM daily_consumption dc
        WHERE dc."userId" = v_user AND dc.day = v_today), 0);
    END IF;
    r_budget := budgets_admit(p_row, v_now); -- budgets
    IF r_key_admits AND r_owed = 0 AND r_balance >= v_amount AND r_budget IS NULL -- budgets
       AND (v_estimate IS NULL OR r_used + r_held + v_estimate <= r_daily_limit) THEN
      UPDATE users u SET credits = u.credits - v_amount WHERE u.id = v_user;
      INSERT INTO credit_holds ("userId", amount, "requestId", "expiresAt", "keyId", "teamId")
        VALUES (v_user, v_amount, v_request, now() + make_interval(secs => p_ttl), v_key, v_team)
        RETURNING credit_holds.id INTO r_hold;
    END IF;
  END $$`;

// admit_holds of migration AdmissionRule, locking the batch's budgets after its users and
// answering `r_budget`.
export const ADMIT_HOLDS = `CREATE FUNCTION admit_holds(p_rows jsonb, p_tz text, p_limits jsonb,
    p_default_limit integer, p_ttl integer)
  RETURNS TABLE (r_ord integer, r_found boolean, r_balance integer, r_used integer,
    r_held integer, r_daily_limit integer, r_resets_at timestamptz, r_key_admits boolean,
    r_owed integer, r_hold uuid, r_error_code text, r_error_message text,
    r_budget jsonb)
  LANGUAGE plpgsql VOLATILE AS $$
  DECLARE
    e record;
    a record;
  BEGIN
    IF jsonb_array_length(p_rows) = 1 THEN
      PERFORM 1 FROM api_keys k WHERE k.id = (p_rows -> 0 ->> 'keyId')::uuid FOR UPDATE;
      PERFORM 1 FROM users u WHERE u.id = (p_rows -> 0 ->> 'userId')::uuid FOR NO KEY UPDATE;
      PERFORM budgets_lock(p_rows); -- budgets
      a := admit_hold(p_rows -> 0, p_tz, p_limits, p_default_limit, p_ttl);
      r_ord := 1; r_found := a.r_found; r_balance := a.r_balance; r_used := a.r_used;
      r_held := a.r_held; r_daily_limit := a.r_daily_limit; r_resets_at := a.r_resets_at;
      r_key_admits := a.r_key_admits; r_owed := a.r_owed; r_hold := a.r_hold;
      r_budget := a.r_budget; -- budgets
      RETURN NEXT;
      RETURN;
    END IF;
    PERFORM 1 FROM api_keys k
      WHERE k.id IN (SELECT (j ->> 'keyId')::uuid FROM jsonb_array_elements(p_rows) j)
      ORDER BY k.id FOR UPDATE;
    PERFORM 1 FROM users u
      WHERE u.id IN (SELECT (j ->> 'userId')::uuid FROM jsonb_array_elements(p_rows) j)
      ORDER BY u.id FOR NO KEY UPDATE;
    PERFORM budgets_lock(p_rows); -- budgets
    FOR e IN SELECT j.value, j.ordinality::integer AS ord
        FROM jsonb_array_elements(p_rows) WITH ORDINALITY j ORDER BY j.ordinality
    LOOP
      r_ord := e.ord; r_error_code := NULL; r_error_message := NULL; r_budget := NULL;
      BEGIN
        a := admit_hold(e.value, p_tz, p_limits, p_default_limit, p_ttl);
        r_found := a.r_found; r_balance := a.r_balance; r_used := a.r_used;
        r_held := a.r_held; r_daily_limit := a.r_daily_limit; r_resets_at := a.r_resets_at;
        r_key_admits := a.r_key_admits; r_owed := a.r_owed; r_hold := a.r_hold;
        r_budget := a.r_budget; -- budgets
      EXCEPTION WHEN OTHERS THEN
        r_hold := NULL; r_error_code := SQLSTATE; r_error_message := SQLERRM;
      END;
      RETURN NEXT;
    END LOOP;
  END $$`;

// record_consumption of migration SettlementRule, writing the entry's team and adding the charge
// to the budget counters (`budgets_record`), with the day counters.
export const RECORD_CONSUMPTION = `CREATE OR REPLACE FUNCTION record_consumption(p_entry jsonb, p_tz text)
  RETURNS integer LANGUAGE plpgsql VOLATILE AS $$
  DECLARE
    v_user uuid;
    v_key uuid;
    v_charged integer;
    v_day date;
    v_team uuid; -- budgets
    v_at timestamptz; -- budgets
  BEGIN
    INSERT INTO credit_transactions ("userId", amount, type, description, reference, "keyId",
        "modelId", "promptTokens", "completionTokens", "cachedTokens", "cacheWriteTokens",
        "reasoningTokens", "cacheSavings", shortfall, "teamId")
      SELECT e."userId", e.amount, 'CONSUMPTION', e.description, e.reference, e."keyId",
        e."modelId", e."promptTokens", e."completionTokens", e."cachedTokens", e."cacheWriteTokens",
        e."reasoningTokens", e."cacheSavings", e.shortfall, e."teamId"
      FROM jsonb_populate_record(NULL::credit_transactions, p_entry) e
      RETURNING "userId", "keyId", -amount, ("createdAt" AT TIME ZONE p_tz)::date,
        "teamId", "createdAt" -- budgets
      INTO v_user, v_key, v_charged, v_day, v_team, v_at;
    IF v_charged > 0 THEN
      INSERT INTO daily_consumption ("userId", day, credits) VALUES (v_user, v_day, v_charged)
        ON CONFLICT ("userId", day)
        DO UPDATE SET credits = daily_consumption.credits + EXCLUDED.credits;
      IF v_key IS NOT NULL THEN
        INSERT INTO daily_key_consumption ("keyId", day, credits) VALUES (v_key, v_day, v_charged)
          ON CONFLICT ("keyId", day)
          DO UPDATE SET credits = daily_key_consumption.credits + EXCLUDED.credits;
      END IF;
      PERFORM budgets_record(v_user, v_team, v_key, v_charged, v_at); -- budgets
    END IF;
    RETURN v_charged;
  END $$`;

// settle_holds of migration SettlementRule, locking the batch's budgets after its users.
export const SETTLE_HOLDS = `CREATE OR REPLACE FUNCTION settle_holds(p_rows jsonb, p_tz text)
  RETURNS TABLE (r_ord integer, r_charged integer, r_shortfall integer, r_error_code text,
    r_error_message text)
  LANGUAGE plpgsql VOLATILE AS $$
  DECLARE
    e record;
    s record;
  BEGIN
    IF jsonb_array_length(p_rows) = 1 THEN
      PERFORM 1 FROM users u WHERE u.id = (p_rows -> 0 ->> 'userId')::uuid FOR NO KEY UPDATE;
      PERFORM budgets_lock(p_rows); -- budgets
      s := settle_hold(p_rows -> 0, p_tz);
      r_ord := 1; r_charged := s.charged; r_shortfall := s.shortfall;
      RETURN NEXT;
      RETURN;
    END IF;
    PERFORM 1 FROM users u
      WHERE u.id IN (SELECT (j ->> 'userId')::uuid FROM jsonb_array_elements(p_rows) j)
      ORDER BY u.id FOR NO KEY UPDATE;
    PERFORM budgets_lock(p_rows); -- budgets
    FOR e IN SELECT j.value, j.ordinality::integer AS ord
        FROM jsonb_array_elements(p_rows) WITH ORDINALITY j ORDER BY j.ordinality
    LOOP
      r_ord := e.ord; r_error_code := NULL; r_error_message := NULL;
      BEGIN
        s := settle_hold(e.value, p_tz);
        r_charged := s.charged; r_shortfall := s.shortfall;
      EXCEPTION WHEN OTHERS THEN
        r_charged := NULL; r_shortfall := NULL;
        r_error_code := SQLSTATE; r_error_message := SQLERRM;
      END;
      RETURN NEXT;
    END LOOP;
  END $$`;
