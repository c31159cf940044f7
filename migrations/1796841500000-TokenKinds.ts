import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The kinds of tokens of each CONSUMPTION entry: of its prompt tokens, those read from
 * (`cachedTokens`) and written to (`cacheWriteTokens`) the provider's prompt cache; of its
 * completion tokens, the reasoning ones (`reasoningTokens`); and `cacheSavings`, the credits its
 * cache reads saved (0 with CREDIT_PRICING=spec). Null when not reported, and for earlier entries.
 *
 * `settle_holds` (migration BatchedHolds) writes them too: its signature grows four arrays, so it
 * is dropped and created again (CREATE OR REPLACE cannot change the arguments); `down` restores
 * the earlier function. The per-row rules are unchanged.
 */
export class TokenKinds1796841500000 implements MigrationInterface {
  name = 'TokenKinds1796841500000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "credit_transactions" ADD "cachedTokens" integer, ADD "cacheWriteTokens" integer,
         ADD "reasoningTokens" integer, ADD "cacheSavings" integer`,
    );
    await queryRunner.query(`DROP FUNCTION settle_holds(${OLD_ARGS})`);
    await queryRunner.query(settleHoldsSql(true));
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP FUNCTION settle_holds(${OLD_ARGS}, ${NEW_ARGS})`);
    await queryRunner.query(settleHoldsSql(false));
    await queryRunner.query(
      `ALTER TABLE "credit_transactions" DROP COLUMN "cacheSavings", DROP COLUMN "reasoningTokens",
         DROP COLUMN "cacheWriteTokens", DROP COLUMN "cachedTokens"`,
    );
  }
}

const OLD_ARGS = `uuid[], uuid[], integer[], varchar[], varchar[], varchar[], integer[], integer[],
  uuid[], text`;
const NEW_ARGS = 'integer[], integer[], integer[], integer[]';

/**
 * `settle_holds` as BatchedHolds created it (`counts` false), or taking, after `p_tz`, each row's
 * cache reads, cache writes, reasoning tokens and cache savings (`counts` true), which go on its
 * CONSUMPTION entry. Everything else is BatchedHolds' function, row for row.
 */
function settleHoldsSql(counts: boolean): string {
  const params = counts
    ? `, p_cached integer[], p_cache_write integer[], p_reasoning integer[], p_savings integer[]`
    : '';
  const arrays = counts ? ', p_cached, p_cache_write, p_reasoning, p_savings' : '';
  const names = counts ? ', cached, cache_write, reasoning, savings' : '';
  const columns = counts
    ? ', "cachedTokens", "cacheWriteTokens", "reasoningTokens", "cacheSavings"'
    : '';
  const values = counts ? ', x.cached, x.cache_write, x.reasoning, x.savings' : '';
  return `CREATE FUNCTION settle_holds(
       p_holds uuid[], p_users uuid[], p_costs integer[], p_descriptions varchar[],
       p_references varchar[], p_models varchar[], p_prompt integer[], p_completion integer[],
       p_keys uuid[], p_tz text${params})
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
             p_prompt, p_completion, p_keys${arrays})
           WITH ORDINALITY AS b(hold_id, cost, description, reference, model_id, prompt_tokens,
             completion_tokens, key_id${names}, ord)
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
                   "modelId", "promptTokens", "completionTokens", "keyId"${columns})
                 VALUES (v_user, -x.cost, 'CONSUMPTION', x.description, x.reference, x.model_id,
                   x.prompt_tokens, x.completion_tokens, x.key_id${values})
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
     END $$`;
}
