import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The admission rule, once, in PostgreSQL, its input read by name:
 * - `admit_hold(p_row jsonb, p_tz, p_limits, p_default_limit, p_ttl)`: one request. `p_row`:
 *   `userId`, `amount` (credits > 0), `dailyEstimate` (credits, or null), `requestId`, `keyId`
 *   (or null), `now` (the Clock's, the day the limits count). Collects what the user owes
 *   (credit_shortfalls) before the hold, in the same row, when the balance covers both: that
 *   was a second transaction and a second admission statement.
 * - `admit_holds(p_rows jsonb, …)`: a batch of those (a JSON array, in order). A single
 *   admission is a batch of one.
 * They replace `admit_holds` over parallel arrays (migrations BatchedHolds, CreditShortfalls);
 * `down` restores it. Needs `record_consumption` (migration SettlementRule).
 */
export class AdmissionRule1796843400000 implements MigrationInterface {
  name = 'AdmissionRule1796843400000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`DROP FUNCTION admit_holds(${ARRAY_ARGS})`);
    await q.query(ADMIT_HOLD);
    await q.query(ADMIT_HOLDS);
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query('DROP FUNCTION admit_holds(jsonb, text, jsonb, integer, integer)');
    await q.query('DROP FUNCTION admit_hold(jsonb, text, jsonb, integer, integer)');
    await q.query(ARRAY_ADMIT_HOLDS);
  }
}

/** Description of the CONSUMPTION entry that collects a debt. */
const COLLECTED = 'Shortfall of earlier replies collected (their usage exceeded hold and balance)';

// Per request, its user's (and key's) row locked by the caller (admit_holds): "used today" is one
// row of the day counter, `held` the user's open holds, the plan's daily limit from `p_limits`
// (else `p_default_limit`); the key's own limit through `api_key_admits` (migration
// DailyConsumption), worst case included. The hold is made when the key admits, the estimate fits
// the daily limit (used + held + estimate), nothing is owed and the balance covers `amount`.
// A user who owes (`r_owed`) and passes the limits with a balance that covers the debt plus
// `amount` first pays the debt: its own CONSUMPTION entry (reference `shortfall:<requestId>`,
// counted in the day counters), then is decided again on the new balance and day counter.
// Otherwise nothing changes and the row tells why (`r_hold` null); `r_found` false: no such user.
export const ADMIT_HOLD = `CREATE FUNCTION admit_hold(p_row jsonb, p_tz text, p_limits jsonb,
    p_default_limit integer, p_ttl integer,
    OUT r_found boolean, OUT r_balance integer, OUT r_used integer, OUT r_held integer,
    OUT r_daily_limit integer, OUT r_resets_at timestamptz, OUT r_key_admits boolean,
    OUT r_owed integer, OUT r_hold uuid)
  LANGUAGE plpgsql VOLATILE AS $$
  DECLARE
    v_user uuid := (p_row ->> 'userId')::uuid;
    v_amount integer := (p_row ->> 'amount')::integer;
    v_estimate integer := (p_row ->> 'dailyEstimate')::integer;
    v_request text := p_row ->> 'requestId';
    v_key uuid := (p_row ->> 'keyId')::uuid;
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
    IF r_key_admits AND r_owed = 0 AND r_balance >= v_amount
       AND (v_estimate IS NULL OR r_used + r_held + v_estimate <= r_daily_limit) THEN
      UPDATE users u SET credits = u.credits - v_amount WHERE u.id = v_user;
      INSERT INTO credit_holds ("userId", amount, "requestId", "expiresAt", "keyId")
        VALUES (v_user, v_amount, v_request, now() + make_interval(secs => p_ttl), v_key)
        RETURNING credit_holds.id INTO r_hold;
    END IF;
  END $$`;

// Locks the batch's API key rows (FOR UPDATE, as api_key_admits does), then its user rows
// (FOR NO KEY UPDATE), each in id order, so two batches never wait on each other in a cycle; then
// admits row by row in order, each query on a fresh snapshot: the second request of a user sees
// the first's hold. In a batch of several, each row runs in its own subtransaction: a failed row
// answers its SQLSTATE and message, undone, and the others commit. A batch of one raises its
// error as the statement's own (no subtransaction).
export const ADMIT_HOLDS = `CREATE FUNCTION admit_holds(p_rows jsonb, p_tz text, p_limits jsonb,
    p_default_limit integer, p_ttl integer)
  RETURNS TABLE (r_ord integer, r_found boolean, r_balance integer, r_used integer,
    r_held integer, r_daily_limit integer, r_resets_at timestamptz, r_key_admits boolean,
    r_owed integer, r_hold uuid, r_error_code text, r_error_message text)
  LANGUAGE plpgsql VOLATILE AS $$
  DECLARE
    e record;
    a record;
  BEGIN
    IF jsonb_array_length(p_rows) = 1 THEN
      PERFORM 1 FROM api_keys k WHERE k.id = (p_rows -> 0 ->> 'keyId')::uuid FOR UPDATE;
      PERFORM 1 FROM users u WHERE u.id = (p_rows -> 0 ->> 'userId')::uuid FOR NO KEY UPDATE;
      a := admit_hold(p_rows -> 0, p_tz, p_limits, p_default_limit, p_ttl);
      r_ord := 1; r_found := a.r_found; r_balance := a.r_balance; r_used := a.r_used;
      r_held := a.r_held; r_daily_limit := a.r_daily_limit; r_resets_at := a.r_resets_at;
      r_key_admits := a.r_key_admits; r_owed := a.r_owed; r_hold := a.r_hold;
      RETURN NEXT;
      RETURN;
    END IF;
    PERFORM 1 FROM api_keys k
      WHERE k.id IN (SELECT (j ->> 'keyId')::uuid FROM jsonb_array_elements(p_rows) j)
      ORDER BY k.id FOR UPDATE;
    PERFORM 1 FROM users u
      WHERE u.id IN (SELECT (j ->> 'userId')::uuid FROM jsonb_array_elements(p_rows) j)
      ORDER BY u.id FOR NO KEY UPDATE;
    FOR e IN SELECT j.value, j.ordinality::integer AS ord
        FROM jsonb_array_elements(p_rows) WITH ORDINALITY j ORDER BY j.ordinality
    LOOP
      r_ord := e.ord; r_error_code := NULL; r_error_message := NULL;
      BEGIN
        a := admit_hold(e.value, p_tz, p_limits, p_default_limit, p_ttl);
        r_found := a.r_found; r_balance := a.r_balance; r_used := a.r_used;
        r_held := a.r_held; r_daily_limit := a.r_daily_limit; r_resets_at := a.r_resets_at;
        r_key_admits := a.r_key_admits; r_owed := a.r_owed; r_hold := a.r_hold;
      EXCEPTION WHEN OTHERS THEN
        r_hold := NULL; r_error_code := SQLSTATE; r_error_message := SQLERRM;
      END;
      RETURN NEXT;
    END LOOP;
  END $$`;

const ARRAY_ARGS = `uuid[], integer[], integer[], varchar[], uuid[], timestamptz[], text, jsonb,
  integer, integer`;

// admit_holds as migration CreditShortfalls left it, for `down`.
const ARRAY_ADMIT_HOLDS = `CREATE FUNCTION admit_holds(
    p_users uuid[], p_amounts integer[], p_estimates integer[], p_requests varchar[],
    p_keys uuid[], p_nows timestamptz[], p_tz text, p_limits jsonb, p_default_limit integer,
    p_ttl integer)
  RETURNS TABLE (r_ord integer, r_found boolean, r_balance integer, r_used integer,
    r_held integer, r_daily_limit integer, r_resets_at timestamptz, r_key_admits boolean,
    r_hold uuid, r_error_code text, r_error_message text, r_owed integer)
  LANGUAGE plpgsql VOLATILE AS $$
  DECLARE
    x record;
    v_today date;
  BEGIN
    PERFORM 1 FROM api_keys k WHERE k.id = ANY(p_keys) ORDER BY k.id FOR UPDATE;
    PERFORM 1 FROM users u WHERE u.id = ANY(p_users) ORDER BY u.id FOR NO KEY UPDATE;
    FOR x IN SELECT * FROM unnest(p_users, p_amounts, p_estimates, p_requests, p_keys, p_nows)
        WITH ORDINALITY AS b(user_id, amount, estimate, request_id, key_id, now_at, ord)
      ORDER BY b.ord
    LOOP
      r_ord := x.ord; r_found := false; r_balance := NULL; r_used := NULL; r_held := NULL;
      r_daily_limit := NULL; r_key_admits := NULL; r_hold := NULL;
      r_error_code := NULL; r_error_message := NULL; r_owed := NULL;
      BEGIN
        v_today := (x.now_at AT TIME ZONE p_tz)::date;
        r_resets_at := (date_trunc('day', x.now_at AT TIME ZONE p_tz) + interval '1 day')
          AT TIME ZONE p_tz;
        SELECT u.credits, COALESCE((p_limits ->> u.plan::text)::int, p_default_limit)
          INTO r_balance, r_daily_limit FROM users u WHERE u.id = x.user_id;
        r_found := FOUND;
        IF r_found THEN
          r_used := COALESCE((SELECT dc.credits FROM daily_consumption dc
            WHERE dc."userId" = x.user_id AND dc.day = v_today), 0);
          r_held := (SELECT COALESCE(SUM(h.amount), 0)::int FROM credit_holds h
            WHERE h."userId" = x.user_id);
          r_owed := COALESCE((SELECT s.credits FROM credit_shortfalls s
            WHERE s."userId" = x.user_id), 0);
          r_key_admits := CASE WHEN x.key_id IS NULL THEN true
            ELSE api_key_admits(x.key_id, x.amount, v_today) END;
          IF r_key_admits AND r_balance >= x.amount AND r_owed = 0
             AND (x.estimate IS NULL OR r_used + r_held + x.estimate <= r_daily_limit) THEN
            UPDATE users u SET credits = u.credits - x.amount WHERE u.id = x.user_id;
            INSERT INTO credit_holds ("userId", amount, "requestId", "expiresAt", "keyId")
              VALUES (x.user_id, x.amount, x.request_id, now() + make_interval(secs => p_ttl),
                x.key_id)
              RETURNING credit_holds.id INTO r_hold;
          END IF;
        END IF;
      EXCEPTION WHEN OTHERS THEN
        r_hold := NULL; r_error_code := SQLSTATE; r_error_message := SQLERRM;
      END;
      RETURN NEXT;
    END LOOP;
  END $$`;
