import type { MigrationInterface, QueryRunner } from 'typeorm';
import { SETTLE_HOLD_V2 } from './1796843600000-TeamPools';
import { editFunction } from './lib/function-edits';

/**
 * `generations`: one row per model call (src/generations), its id the request id its hold was
 * made for (so its CONSUMPTION entry's reference is `consumption:<id>`). The row is written by
 * the settlement itself: `settle_hold` inserts it from its row's `generation` object (the call's
 * models, upstreams, tokens, prices and timings) with the credits it `charged`, in the same
 * statement as the ledger entry, so its cost always equals the entry's. A settlement repeated, or
 * of an account that is gone, writes no row; a row without `generation` (a bare charge) neither.
 * Old rows are deleted by the retention job (GENERATIONS_KEEP_DAYS).
 */
export class Generations1796844350000 implements MigrationInterface {
  name = 'Generations1796844350000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE "generations" (
      "id" uuid PRIMARY KEY,
      "userId" uuid REFERENCES "users"("id") ON DELETE CASCADE,
      "keyId" uuid,
      "teamId" uuid,
      "chatId" uuid,
      "requestedModel" varchar(100) NOT NULL,
      "model" varchar(100) NOT NULL,
      "upstream" varchar(200),
      "attempts" jsonb NOT NULL DEFAULT '[]',
      "promptTokens" integer NOT NULL,
      "completionTokens" integer NOT NULL,
      "cachedTokens" integer,
      "cacheWriteTokens" integer,
      "reasoningTokens" integer,
      "prices" jsonb,
      "cost" integer NOT NULL,
      "usageEstimated" boolean NOT NULL,
      "streamed" boolean NOT NULL,
      "latencyMs" integer NOT NULL,
      "firstTokenMs" integer,
      "finishReason" varchar(40),
      "createdAt" timestamptz NOT NULL DEFAULT now())`);
    await q.query(
      `CREATE INDEX "IDX_generations_user" ON "generations" ("userId", "createdAt" DESC, "id" DESC)`,
    );
    await q.query(
      `CREATE INDEX "IDX_generations_key" ON "generations" ("keyId", "createdAt" DESC, "id" DESC)
        WHERE "keyId" IS NOT NULL`,
    );
    await q.query(`CREATE INDEX "IDX_generations_created" ON "generations" ("createdAt", "id")`);
    await q.query(SETTLE_HOLD_V3);
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(SETTLE_HOLD_V2);
    await q.query('DROP TABLE "generations"');
  }
}

// settle_hold writing the call's generation record after its entry (`charged`: the entry's own
// credits; the caller is the user, or a pool's member while their account exists, as on the
// pool's entry).
const SETTLE_HOLD_V3 = editFunction('Generations', SETTLE_HOLD_V2, [
  [
    `    IF shortfall > 0 AND v_team IS NULL THEN -- team pools: a pool owes nothing later`,
    `    IF jsonb_typeof(p_row -> 'generation') = 'object' THEN -- generations
      INSERT INTO generations (id, "userId", "keyId", "teamId", "chatId", "requestedModel", model,
          upstream, attempts, "promptTokens", "completionTokens", "cachedTokens",
          "cacheWriteTokens", "reasoningTokens", prices, cost, "usageEstimated", streamed,
          "latencyMs", "firstTokenMs", "finishReason")
        SELECT g.id, CASE WHEN v_team IS NULL THEN v_user ELSE v_member END, g."keyId", g."teamId", g."chatId", g."requestedModel", g.model,
          g.upstream, COALESCE(g.attempts, '[]'), g."promptTokens", g."completionTokens",
          g."cachedTokens", g."cacheWriteTokens", g."reasoningTokens", g.prices, charged,
          g."usageEstimated", g.streamed, g."latencyMs", g."firstTokenMs", g."finishReason"
        FROM jsonb_populate_record(NULL::generations, p_row -> 'generation') g
        ON CONFLICT (id) DO NOTHING;
    END IF;
    IF shortfall > 0 AND v_team IS NULL THEN -- team pools: a pool owes nothing later`,
  ],
]);
