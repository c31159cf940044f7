import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The settlement rule, once, in PostgreSQL, its input read by name (JSON objects, no parallel
 * arrays, no counted placeholders):
 * - `record_consumption(p_entry jsonb, p_tz text)`: one CONSUMPTION entry and its day counters
 *   (`daily_consumption`, and `daily_key_consumption` with a key). `p_entry` carries ledger
 *   columns by name (read with `jsonb_populate_record` over `credit_transactions`; `amount` is
 *   the signed ledger amount), so a new ledger column is one more column of its INSERT.
 * - `settle_hold(p_row jsonb, p_tz text)`: the whole settlement of one request. `p_row`: `holdId`,
 *   `userId`, `cost` (credits ≥ 0), `description`, `reference`, then any ledger column
 *   (`keyId`, `modelId`, tokens, …) passed on to the entry. Returns `charged` and `shortfall`.
 * - `settle_holds(p_rows jsonb, p_tz text)`: a batch of those (a JSON array, in order). A single
 *   settlement is a batch of one.
 * They replace `settle_holds` over parallel arrays (migrations BatchedHolds, TokenKinds), which
 * applied only the covered case; `down` restores it.
 */
export class SettlementRule1796843300000 implements MigrationInterface {
  name = 'SettlementRule1796843300000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`DROP FUNCTION settle_holds(${ARRAY_ARGS})`);
    await q.query(RECORD_CONSUMPTION);
    await q.query(SETTLE_HOLD);
    await q.query(SETTLE_HOLDS);
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query('DROP FUNCTION settle_holds(jsonb, text)');
    await q.query('DROP FUNCTION settle_hold(jsonb, text)');
    await q.query('DROP FUNCTION record_consumption(jsonb, text)');
    await q.query(ARRAY_SETTLE_HOLDS);
  }
}

// Entry and day counters commit together. The day is the local date (`p_tz`) of the entry's own
// `createdAt`, so a day's counter always equals the ledger's sum over that day; a zero charge
// counts nothing. Returns the credits charged (-amount).
export const RECORD_CONSUMPTION = `CREATE FUNCTION record_consumption(p_entry jsonb, p_tz text)
  RETURNS integer LANGUAGE plpgsql VOLATILE AS $$
  DECLARE
    v_user uuid;
    v_key uuid;
    v_charged integer;
    v_day date;
  BEGIN
    INSERT INTO credit_transactions ("userId", amount, type, description, reference, "keyId",
        "modelId", "promptTokens", "completionTokens", "cachedTokens", "cacheWriteTokens",
        "reasoningTokens", "cacheSavings", shortfall)
      SELECT e."userId", e.amount, 'CONSUMPTION', e.description, e.reference, e."keyId",
        e."modelId", e."promptTokens", e."completionTokens", e."cachedTokens", e."cacheWriteTokens",
        e."reasoningTokens", e."cacheSavings", e.shortfall
      FROM jsonb_populate_record(NULL::credit_transactions, p_entry) e
      RETURNING "userId", "keyId", -amount, ("createdAt" AT TIME ZONE p_tz)::date
      INTO v_user, v_key, v_charged, v_day;
    IF v_charged > 0 THEN
      INSERT INTO daily_consumption ("userId", day, credits) VALUES (v_user, v_day, v_charged)
        ON CONFLICT ("userId", day)
        DO UPDATE SET credits = daily_consumption.credits + EXCLUDED.credits;
      IF v_key IS NOT NULL THEN
        INSERT INTO daily_key_consumption ("keyId", day, credits) VALUES (v_key, v_day, v_charged)
          ON CONFLICT ("keyId", day)
          DO UPDATE SET credits = daily_key_consumption.credits + EXCLUDED.credits;
      END IF;
    END IF;
    RETURN v_charged;
  END $$`;

// Per request, the user's row locked by the caller (settle_holds):
// - the hold is deleted; gone (settled, released or swept) and the reference already recorded:
//   settled before, so the answer is what was charged then, and nothing changes;
// - the hold covers the cost: charge it, return the rest;
// - it does not, or is gone: the rest comes from the balance, down to 0; what the balance cannot
//   cover is a shortfall, named in the description, set on the entry's `shortfall` and added
//   to what the user owes (credit_shortfalls), which the next admission collects;
// - the user is gone: nothing is charged, the whole cost is the shortfall (nothing recorded).
// The entry's reference is unique: a hold whose reference is taken fails (23505), undone.
export const SETTLE_HOLD = `CREATE FUNCTION settle_hold(p_row jsonb, p_tz text,
    OUT charged integer, OUT shortfall integer)
  LANGUAGE plpgsql VOLATILE AS $$
  DECLARE
    v_hold uuid := (p_row ->> 'holdId')::uuid;
    v_user uuid := (p_row ->> 'userId')::uuid;
    v_cost integer := (p_row ->> 'cost')::integer;
    v_description text := p_row ->> 'description';
    v_held integer;
    v_balance integer;
    v_done integer;
  BEGIN
    DELETE FROM credit_holds h WHERE h.id = v_hold RETURNING h.amount INTO v_held;
    IF NOT FOUND THEN
      v_held := 0;
      SELECT t.amount INTO v_done FROM credit_transactions t WHERE t.reference = p_row ->> 'reference';
      IF FOUND THEN
        charged := GREATEST(0, -v_done); shortfall := 0;
        RETURN;
      END IF;
    END IF;
    IF v_held >= v_cost THEN
      UPDATE users u SET credits = u.credits + (v_held - v_cost) WHERE u.id = v_user;
      charged := v_cost;
    ELSE
      SELECT u.credits INTO v_balance FROM users u WHERE u.id = v_user;
      IF FOUND THEN
        charged := v_held + LEAST(v_cost - v_held, v_balance);
        UPDATE users u SET credits = u.credits - (charged - v_held) WHERE u.id = v_user;
      END IF;
    END IF;
    IF NOT FOUND THEN -- the user's row is gone
      charged := 0; shortfall := v_cost;
      RETURN;
    END IF;
    shortfall := v_cost - charged;
    IF shortfall > 0 THEN
      v_description := left(v_description
        || format(' (shortfall of %s credits not covered by the balance)', shortfall), 500);
    END IF;
    v_done := record_consumption(p_row || jsonb_build_object('amount', -charged,
      'description', v_description, 'shortfall', NULLIF(shortfall, 0)), p_tz);
    IF shortfall > 0 THEN
      INSERT INTO credit_shortfalls ("userId", credits) VALUES (v_user, shortfall)
        ON CONFLICT ("userId") DO UPDATE
        SET credits = credit_shortfalls.credits + EXCLUDED.credits, "updatedAt" = now();
    END IF;
  END $$`;

// Locks the batch's user rows in id order (FOR NO KEY UPDATE, as UPDATE users takes), then
// settles row by row in order, each query on a fresh snapshot: two settlements of one user in a
// batch are decided as two statements one after the other. In a batch of several, each row runs
// in its own subtransaction: a failed row answers its SQLSTATE and message, undone, and the
// others commit. A batch of one raises its error as the statement's own (no subtransaction).
export const SETTLE_HOLDS = `CREATE FUNCTION settle_holds(p_rows jsonb, p_tz text)
  RETURNS TABLE (r_ord integer, r_charged integer, r_shortfall integer, r_error_code text,
    r_error_message text)
  LANGUAGE plpgsql VOLATILE AS $$
  DECLARE
    e record;
    s record;
  BEGIN
    IF jsonb_array_length(p_rows) = 1 THEN
      PERFORM 1 FROM users u WHERE u.id = (p_rows -> 0 ->> 'userId')::uuid FOR NO KEY UPDATE;
      s := settle_hold(p_rows -> 0, p_tz);
      r_ord := 1; r_charged := s.charged; r_shortfall := s.shortfall;
      RETURN NEXT;
      RETURN;
    END IF;
    PERFORM 1 FROM users u
      WHERE u.id IN (SELECT (j ->> 'userId')::uuid FROM jsonb_array_elements(p_rows) j)
      ORDER BY u.id FOR NO KEY UPDATE;
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

const ARRAY_ARGS = `uuid[], uuid[], integer[], varchar[], varchar[], varchar[], integer[],
  integer[], uuid[], text, integer[], integer[], integer[], integer[]`;

// settle_holds as migration TokenKinds left it, for `down`.
const ARRAY_SETTLE_HOLDS = `CREATE FUNCTION settle_holds(
    p_holds uuid[], p_users uuid[], p_costs integer[], p_descriptions varchar[],
    p_references varchar[], p_models varchar[], p_prompt integer[], p_completion integer[],
    p_keys uuid[], p_tz text, p_cached integer[], p_cache_write integer[], p_reasoning integer[],
    p_savings integer[])
  RETURNS TABLE (r_ord integer, r_charged integer, r_error_code text, r_error_message text)
  LANGUAGE plpgsql VOLATILE AS $$
  DECLARE
    x record;
    v_user uuid;
    v_amount integer;
    v_day date;
  BEGIN
    PERFORM 1 FROM users u WHERE u.id = ANY(p_users) ORDER BY u.id FOR NO KEY UPDATE;
    FOR x IN SELECT * FROM unnest(p_holds, p_costs, p_descriptions, p_references, p_models,
          p_prompt, p_completion, p_keys, p_cached, p_cache_write, p_reasoning, p_savings)
        WITH ORDINALITY AS b(hold_id, cost, description, reference, model_id, prompt_tokens,
          completion_tokens, key_id, cached, cache_write, reasoning, savings, ord)
      ORDER BY b.ord
    LOOP
      r_ord := x.ord; r_charged := NULL; r_error_code := NULL; r_error_message := NULL;
      BEGIN
        DELETE FROM credit_holds h WHERE h.id = x.hold_id AND h.amount >= x.cost
          RETURNING h."userId", h.amount INTO v_user, v_amount;
        IF FOUND THEN
          UPDATE users u SET credits = u.credits + (v_amount - x.cost) WHERE u.id = v_user;
          IF FOUND THEN
            INSERT INTO credit_transactions ("userId", amount, type, description, reference,
                "modelId", "promptTokens", "completionTokens", "keyId", "cachedTokens",
                "cacheWriteTokens", "reasoningTokens", "cacheSavings")
              VALUES (v_user, -x.cost, 'CONSUMPTION', x.description, x.reference, x.model_id,
                x.prompt_tokens, x.completion_tokens, x.key_id, x.cached, x.cache_write,
                x.reasoning, x.savings)
              RETURNING ("createdAt" AT TIME ZONE p_tz)::date INTO v_day;
            IF x.cost > 0 THEN
              INSERT INTO daily_consumption ("userId", day, credits) VALUES (v_user, v_day, x.cost)
                ON CONFLICT ("userId", day)
                DO UPDATE SET credits = daily_consumption.credits + EXCLUDED.credits;
              IF x.key_id IS NOT NULL THEN
                INSERT INTO daily_key_consumption ("keyId", day, credits)
                  VALUES (x.key_id, v_day, x.cost)
                  ON CONFLICT ("keyId", day)
                  DO UPDATE SET credits = daily_key_consumption.credits + EXCLUDED.credits;
              END IF;
            END IF;
            r_charged := x.cost;
          END IF;
        END IF;
      EXCEPTION WHEN OTHERS THEN
        r_charged := NULL; r_error_code := SQLSTATE; r_error_message := SQLERRM;
      END;
      RETURN NEXT;
    END LOOP;
  END $$`;
