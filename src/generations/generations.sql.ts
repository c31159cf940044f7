import { SqlParams, type SqlStatement } from '../database/sql-params';

// The statements of the generation records (`generations`, migration Generations). Rows are
// written only by the settlement (`settle_hold`); here they are read and, when old, deleted.

/** The answer columns of a generation row. */
const COLUMNS = `g.id, g."userId", g."keyId", g."teamId", g."chatId", g."requestedModel", g.model,
  g.upstream, g.attempts, g."promptTokens", g."completionTokens", g."cachedTokens",
  g."cacheWriteTokens", g."reasoningTokens", g.prices, g.cost, g."usageEstimated", g.streamed,
  g."latencyMs", g."firstTokenMs", g."finishReason", g."createdAt"`;

/**
 * One generation by id, only when it is the caller's: $1 the id, $2 the API key the caller came
 * through (then only that key's calls), or null with $3 the user (then only the user's calls).
 */
export const GENERATION_OF_CALLER_SQL = `SELECT ${COLUMNS} FROM generations g
  WHERE g.id = $1 AND (CASE WHEN $2::uuid IS NOT NULL THEN g."keyId" = $2::uuid
    ELSE g."userId" = $3::uuid END)`;

/** What a page of generations is filtered by; absent: any. */
export interface GenerationFilter {
  userId?: string;
  keyId?: string;
  model?: string;
  upstream?: string;
  from?: Date;
  to?: Date;
  /** The keyset position after which the page starts (newest first). */
  after?: { at: Date; id: string };
  /** Rows to fetch (the page size plus one). */
  limit: number;
}

/**
 * A page of generations, newest first (`createdAt`, then id), filtered by `f`: the user, the API
 * key, the answering model, the answering upstream, `from` ≤ `createdAt` < `to`.
 */
export function generationPageStatement(f: GenerationFilter): SqlStatement {
  const p = new SqlParams();
  const where: string[] = [];
  if (f.userId) where.push(`g."userId" = ${p.add(f.userId)}::uuid`);
  if (f.keyId) where.push(`g."keyId" = ${p.add(f.keyId)}::uuid`);
  if (f.model) where.push(`g.model = ${p.add(f.model)}`);
  if (f.upstream) where.push(`g.upstream = ${p.add(f.upstream)}`);
  if (f.from) where.push(`g."createdAt" >= ${p.add(f.from)}`);
  if (f.to) where.push(`g."createdAt" < ${p.add(f.to)}`);
  if (f.after)
    where.push(`(g."createdAt", g.id) < (${p.add(f.after.at)}, ${p.add(f.after.id)}::uuid)`);
  const sql = `SELECT ${COLUMNS} FROM generations g
    ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
    ORDER BY g."createdAt" DESC, g.id DESC LIMIT ${p.add(f.limit)}`;
  return { sql, params: p.values };
}

/** Deletes the generations made before $1; answers `deleted`, their number. */
export const DELETE_OLD_GENERATIONS_SQL = `WITH gone AS (DELETE FROM generations
  WHERE "createdAt" < $1 RETURNING 1) SELECT count(*)::int AS deleted FROM gone`;
