import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Shortfalls: credits of a reply's reported usage that neither its hold nor the balance covered.
 * - `credit_transactions.shortfall`: on the reply's CONSUMPTION entry, the credits it could not
 *   charge (null when it charged everything): the call is flagged where it is accounted.
 * - `credit_shortfalls ("userId", credits)`: what the user still owes, the sum of those not yet
 *   collected. Admission refuses while it is not 0 (`admit_holds` and ADMISSION_SQL answer
 *   `owed`); CreditHoldsService then collects it, with a CONSUMPTION entry, when the balance
 *   covers it and the new hold, and admits again. Written only under the user's row lock.
 *
 * `admit_holds` (migration BatchedHolds) gains the refusal and the `r_owed` column: its result
 * type changes, so it is dropped and created again; `down` restores the earlier function.
 */
export class CreditShortfalls1796843000000 implements MigrationInterface {
  name = 'CreditShortfalls1796843000000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "credit_transactions" ADD "shortfall" integer`);
    await q.query(`
      CREATE TABLE credit_shortfalls (
        "userId" uuid NOT NULL,
        credits integer NOT NULL,
        "updatedAt" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(),
        CONSTRAINT "PK_credit_shortfalls" PRIMARY KEY ("userId"),
        CONSTRAINT "CHK_credit_shortfalls_credits" CHECK (credits >= 0),
        CONSTRAINT "FK_credit_shortfalls_user" FOREIGN KEY ("userId") REFERENCES users(id)
          ON DELETE CASCADE
      )`);
    await q.query(`DROP FUNCTION admit_holds(${ARGS})`);
    await q.query(admitHoldsSql(true));
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP FUNCTION admit_holds(${ARGS})`);
    await q.query(admitHoldsSql(false));
    await q.query('DROP TABLE credit_shortfalls');
    await q.query(`ALTER TABLE "credit_transactions" DROP COLUMN "shortfall"`);
  }
}

const ARGS = `uuid[], integer[], integer[], varchar[], uuid[], timestamptz[], text, jsonb, integer,
  integer`;

/**
 * `admit_holds` as BatchedHolds created it (`owed` false), or refusing a row whose user owes a
 * shortfall and answering it as `r_owed` (`owed` true). Everything else is BatchedHolds'
 * function, row for row.
 */
function admitHoldsSql(owed: boolean): string {
  const column = owed ? ', r_owed integer' : '';
  const reset = owed ? ' r_owed := NULL;' : '';
  const read = owed
    ? `r_owed := COALESCE((SELECT s.credits FROM credit_shortfalls s
                 WHERE s."userId" = x.user_id), 0);`
    : '';
  const condition = owed ? ' AND r_owed = 0' : '';
  return `CREATE FUNCTION admit_holds(
       p_users uuid[], p_amounts integer[], p_estimates integer[], p_requests varchar[],
       p_keys uuid[], p_nows timestamptz[], p_tz text, p_limits jsonb, p_default_limit integer,
       p_ttl integer)
     RETURNS TABLE (r_ord integer, r_found boolean, r_balance integer, r_used integer,
       r_held integer, r_daily_limit integer, r_resets_at timestamptz, r_key_admits boolean,
       r_hold uuid, r_error_code text, r_error_message text${column})
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
         r_error_code := NULL; r_error_message := NULL;${reset}
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
             ${read}
             r_key_admits := CASE WHEN x.key_id IS NULL THEN true
               ELSE api_key_admits(x.key_id, x.amount, v_today) END;
             IF r_key_admits AND r_balance >= x.amount${condition}
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
     END $$`;
}
