import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `admit_holds` and `settle_holds`: the admission and the usual settlement of many requests in
 * one statement (natural batching, BATCH_STATEMENTS), one row in, one row out, in order.
 *
 * Each takes its rows as parallel arrays (`unnest … WITH ORDINALITY`) and decides them one by one
 * in that order, each query on a fresh snapshot (READ COMMITTED, a VOLATILE function), so two
 * requests of one user in a batch are decided exactly as two statements one after the other
 * would be: the second sees the first's hold, balance and day counters. Each row runs in its own
 * subtransaction (BEGIN … EXCEPTION): a row that fails answers its SQLSTATE and message, its
 * changes undone, and the other rows commit.
 *
 * Locks first, in one global order: the batch's API key rows by id (as `api_key_admits` locks
 * them, FOR UPDATE), then its user rows by id (FOR NO KEY UPDATE, what `UPDATE users` takes, so
 * foreign keys to users are not blocked). Two batches, or a batch and a single statement (which
 * takes one key, then one user), then never wait on each other in a cycle.
 *
 * The rules are those of ADMISSION_SQL and SETTLE_CTES (src/credits/credit-holds.sql.ts), which
 * run them for one request; a change to one changes the other.
 */
export class BatchedHolds1796840000000 implements MigrationInterface {
  name = 'BatchedHolds1796840000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    // Per row: today's usage (the day counter), open holds and the plan's daily limit against the
    // estimate, the key's own limit against the whole hold, then the decrement and the hold row.
    // The answer carries what the caller needs to name a refusal (as ADMISSION_SQL's row does).
    await queryRunner.query(
      `CREATE FUNCTION admit_holds(
         p_users uuid[], p_amounts integer[], p_estimates integer[], p_requests varchar[],
         p_keys uuid[], p_nows timestamptz[], p_tz text, p_limits jsonb, p_default_limit integer,
         p_ttl integer)
       RETURNS TABLE (r_ord integer, r_found boolean, r_balance integer, r_used integer,
         r_held integer, r_daily_limit integer, r_resets_at timestamptz, r_key_admits boolean,
         r_hold uuid, r_error_code text, r_error_message text)
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
           r_error_code := NULL; r_error_message := NULL;
           BEGIN
             v_today := (x.now_at AT TIME ZONE p_tz)::date;
             r_resets_at := (date_trunc('day', x.now_at AT TIME ZONE p_tz) + interval '1 day') AT TIME ZONE p_tz;
             SELECT u.credits, COALESCE((p_limits ->> u.plan::text)::int, p_default_limit)
               INTO r_balance, r_daily_limit FROM users u WHERE u.id = x.user_id;
             r_found := FOUND;
             IF r_found THEN
               r_used := COALESCE((SELECT dc.credits FROM daily_consumption dc
                 WHERE dc."userId" = x.user_id AND dc.day = v_today), 0);
               r_held := (SELECT COALESCE(SUM(h.amount), 0)::int FROM credit_holds h
                 WHERE h."userId" = x.user_id);
               r_key_admits := CASE WHEN x.key_id IS NULL THEN true
                 ELSE api_key_admits(x.key_id, x.amount, v_today) END;
               IF r_key_admits AND r_balance >= x.amount
                  AND (x.estimate IS NULL OR r_used + r_held + x.estimate <= r_daily_limit) THEN
                 UPDATE users u SET credits = u.credits - x.amount WHERE u.id = x.user_id;
                 INSERT INTO credit_holds ("userId", amount, "requestId", "expiresAt", "keyId")
                   VALUES (x.user_id, x.amount, x.request_id, now() + make_interval(secs => p_ttl), x.key_id)
                   RETURNING credit_holds.id INTO r_hold;
               END IF;
             END IF;
           EXCEPTION WHEN OTHERS THEN
             r_hold := NULL; r_error_code := SQLSTATE; r_error_message := SQLERRM;
           END;
           RETURN NEXT;
         END LOOP;
       END $$`,
    );
    // Per row: delete the hold when it covers the cost, return the rest, one CONSUMPTION entry and
    // its day counters. r_charged is null when the hold does not cover the cost or is gone (the
    // caller then settles that request in a transaction of its own, as after SETTLE_SQL).
    await queryRunner.query(
      `CREATE FUNCTION settle_holds(
         p_holds uuid[], p_users uuid[], p_costs integer[], p_descriptions varchar[],
         p_references varchar[], p_models varchar[], p_prompt integer[], p_completion integer[],
         p_keys uuid[], p_tz text)
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
               p_prompt, p_completion, p_keys)
             WITH ORDINALITY AS b(hold_id, cost, description, reference, model_id, prompt_tokens,
               completion_tokens, key_id, ord)
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
                     "modelId", "promptTokens", "completionTokens", "keyId")
                   VALUES (v_user, -x.cost, 'CONSUMPTION', x.description, x.reference, x.model_id,
                     x.prompt_tokens, x.completion_tokens, x.key_id)
                   RETURNING ("createdAt" AT TIME ZONE p_tz)::date INTO v_day;
                 IF x.cost > 0 THEN
                   INSERT INTO daily_consumption ("userId", day, credits) VALUES (v_user, v_day, x.cost)
                     ON CONFLICT ("userId", day)
                     DO UPDATE SET credits = daily_consumption.credits + EXCLUDED.credits;
                   IF x.key_id IS NOT NULL THEN
                     INSERT INTO daily_key_consumption ("keyId", day, credits) VALUES (x.key_id, v_day, x.cost)
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
       END $$`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `DROP FUNCTION settle_holds(uuid[], uuid[], integer[], varchar[], varchar[], varchar[],
         integer[], integer[], uuid[], text)`,
    );
    await queryRunner.query(
      `DROP FUNCTION admit_holds(uuid[], integer[], integer[], varchar[], uuid[], timestamptz[],
         text, jsonb, integer, integer)`,
    );
  }
}
