import { SqlParams, type SqlStatement } from '../database/sql-params';

// Statements of the redemption tables (migration RedemptionCodes): `redemption_batches` and
// `redemption_codes`. The grants are written by CreditsService, in the same transaction.

/**
 * Creates a batch: $1 id, $2 name, $3 credits per use, $4 quantity (codes), $5 uses per code,
 * $6 one use per user, $7 expiry or null, $8 the sealed codes (until the export), $9 the admin.
 */
export const INSERT_BATCH_SQL = `INSERT INTO redemption_batches
         (id, name, credits, quantity, "usesPerCode", "onePerUser", "expiresAt", "sealedCodes", "createdBy")
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`;

/** Records the codes of batch $1: $2 their SHA-256 hashes (text[]); a hash is unique. */
export const INSERT_CODES_SQL = `INSERT INTO redemption_codes ("batchId", "codeHash")
       SELECT $1, unnest($2::text[])`;

/**
 * A batch's columns with its codes' counts: `created` (codes), `redeemed` (codes used at least
 * once), `redemptions` (uses taken), `open` (codes with a use left; expired once `expiresAt`
 * passes). `sealedCodes` is never read here.
 */
const BATCH_COLUMNS = `b.id, b.name, b.credits, b.quantity, b."usesPerCode", b."onePerUser",
  b."expiresAt", b."disabledAt", b."exportedAt", b."createdAt",
  n.created, n.redeemed, n.redemptions, n.open`;
const BATCH_COUNTS = `CROSS JOIN LATERAL (SELECT count(*)::int AS created,
    count(*) FILTER (WHERE c.uses > 0)::int AS redeemed,
    COALESCE(sum(c.uses), 0)::int AS redemptions,
    count(*) FILTER (WHERE c.uses < b."usesPerCode")::int AS open
  FROM redemption_codes c WHERE c."batchId" = b.id) n`;

/** Batch $1 with its counts (BATCH_COLUMNS); no row for an unknown id. */
export const BATCH_SQL = `SELECT ${BATCH_COLUMNS} FROM redemption_batches b ${BATCH_COUNTS} WHERE b.id = $1`;

/**
 * One page of batches with their counts, newest first: `limit` rows, after the keyset position
 * `after` (`createdAt`, `id` of the previous page's last row) when given.
 */
export function listBatchesStatement(
  limit: number,
  after?: { at: Date; id: string },
): SqlStatement {
  const p = new SqlParams();
  const where = after
    ? `WHERE (b."createdAt", b.id) < (${p.add(after.at)}, ${p.add(after.id)})`
    : '';
  const sql = `SELECT ${BATCH_COLUMNS} FROM redemption_batches b ${BATCH_COUNTS} ${where}
    ORDER BY b."createdAt" DESC, b.id DESC LIMIT ${p.add(limit)}`;
  return { sql, params: p.values };
}

/**
 * Takes batch $1's sealed codes once: marks it exported at $2 and clears them, returning
 * `{sealedCodes}` as they were; no row when the batch is unknown or was exported before (the
 * row lock makes a second, concurrent export wait and then find nothing).
 */
export const TAKE_SEALED_CODES_SQL = `WITH old AS (
         SELECT id, "sealedCodes" FROM redemption_batches
         WHERE id = $1 AND "exportedAt" IS NULL FOR UPDATE)
       UPDATE redemption_batches b SET "exportedAt" = $2, "sealedCodes" = NULL
       FROM old WHERE b.id = old.id RETURNING old."sealedCodes"`;

/** One row when batch $1 exists. */
export const BATCH_EXISTS_SQL = 'SELECT 1 FROM redemption_batches WHERE id = $1';

/**
 * Disables batch $1 at $2; returns `id`, no row when it is unknown or disabled already (it keeps
 * the time it was first disabled).
 */
export const DISABLE_BATCH_SQL = `UPDATE redemption_batches SET "disabledAt" = $2
       WHERE id = $1 AND "disabledAt" IS NULL RETURNING id`;

/**
 * Takes one use of the code whose hash is $1 at time $2, by compare-and-swap: only while it has
 * a use left, its batch is not disabled and has not expired (`expiresAt` > $2). The code's row
 * lock makes concurrent redemptions take turns, each re-checking the uses it finds, so uses
 * never pass `usesPerCode`. Returns `{codeId, use (the number of this use), batchId, name,
 * credits, onePerUser}`; no row when refused (WHY_REFUSED_SQL tells why).
 */
export const TAKE_USE_SQL = `UPDATE redemption_codes c SET uses = c.uses + 1
       FROM redemption_batches b
       WHERE c."codeHash" = $1 AND b.id = c."batchId" AND c.uses < b."usesPerCode"
         AND b."disabledAt" IS NULL AND (b."expiresAt" IS NULL OR b."expiresAt" > $2)
       RETURNING c.id AS "codeId", c.uses AS "use", b.id AS "batchId", b.name, b.credits,
         b."onePerUser"`;

/**
 * `{usedUp, disabled, expiresAt}` of the code whose hash is $1 (why TAKE_USE_SQL refused it);
 * no row for an unknown code.
 */
export const WHY_REFUSED_SQL = `SELECT c.uses >= b."usesPerCode" AS "usedUp", b."disabledAt" IS NOT NULL AS disabled,
         b."expiresAt"
       FROM redemption_codes c JOIN redemption_batches b ON b.id = c."batchId"
       WHERE c."codeHash" = $1`;
