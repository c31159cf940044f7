// The raw statements of the webhook module: the event log, stored failures, dispute rows and
// the per-payment refund lock.

/** One row when event $1 was processed (its id is in `webhook_events`). */
export const EVENT_SEEN_SQL = 'SELECT 1 FROM webhook_events WHERE id = $1';

/**
 * Records event $1 of type $2 created at $3 (Unix seconds); returns `id`, no row when it was
 * recorded already. In the transaction applying the event, so an event is applied once: a
 * concurrent delivery blocks on the key until this one commits or rolls back.
 */
export const RECORD_EVENT_SQL = `INSERT INTO webhook_events (id, type, "eventCreatedAt")
             VALUES ($1, $2, to_timestamp($3)) ON CONFLICT (id) DO NOTHING RETURNING id`;

/**
 * Stores a failed event: $1 event id, $2 type, $3 payload, $4 error message. A failure stored
 * already counts one more attempt and keeps the latest error (one row per event).
 */
export const RECORD_FAILURE_SQL = `INSERT INTO webhook_failures ("eventId", type, payload, error) VALUES ($1, $2, $3, $4)
       ON CONFLICT ("eventId") DO UPDATE SET attempts = webhook_failures.attempts + 1,
         error = EXCLUDED.error, "lastAttemptAt" = now()`;

/**
 * Stores the event a reconciliation built for a paid payment with no grant: $1 event id, $2 type,
 * $3 payload, $4 message; reason `reconciliation`. Returns `eventId` when stored now, no row when
 * the event is stored already (a second run adds nothing).
 */
export const RECORD_RECONCILIATION_SQL = `INSERT INTO webhook_failures ("eventId", type, payload, error, reason)
       VALUES ($1, $2, $3, $4, 'reconciliation') ON CONFLICT ("eventId") DO NOTHING RETURNING "eventId"`;

/** Removes the stored failure of event $1. */
export const RESOLVE_FAILURE_SQL = 'DELETE FROM webhook_failures WHERE "eventId" = $1';

/**
 * Takes the transaction-scoped advisory lock of key $1 (`refund:<paymentIntentId>`): refunds and
 * disputes of one payment take turns, so the same credits are never taken back twice.
 */
export const REFUND_LOCK_SQL = 'SELECT pg_advisory_xact_lock(hashtext($1))';

/** The columns of a dispute row as DisputesHandler reads them. */
const DISPUTE_COLUMNS = `id, "paymentIntentId", status, amount, currency, "creditsTaken", "creditsRestored"`;

/**
 * The disputes of payment $1 whose clawback was recorded but neither given back nor decided for
 * us (status not in $2, text[]), oldest first, rows locked until the transaction ends.
 */
export const OPEN_CLAWED_DISPUTES_SQL = `SELECT ${DISPUTE_COLUMNS} FROM payment_disputes
       WHERE "paymentIntentId" = $1 AND "creditsTaken" IS NOT NULL AND "creditsRestored" IS NULL
         AND NOT (status = ANY($2))
       ORDER BY "createdAt", id FOR UPDATE`;

/** Sets dispute $1's status to $2. */
export const SET_DISPUTE_STATUS_SQL = `UPDATE payment_disputes SET status = $2, "updatedAt" = now() WHERE id = $1`;

/**
 * Records a dispute on first sight: $1 dispute id, $2 payment intent, $3 charge id or null,
 * $4 status, $5 amount (minor units) or null, $6 currency or null. A dispute seen before is left
 * as it is (one row per dispute).
 */
export const INSERT_DISPUTE_SQL = `INSERT INTO payment_disputes (id, "paymentIntentId", "chargeId", status, amount, currency)
       VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (id) DO NOTHING`;

/** Dispute $1's row, locked until the transaction ends. */
export const LOCK_DISPUTE_SQL = `SELECT ${DISPUTE_COLUMNS} FROM payment_disputes WHERE id = $1 FOR UPDATE`;

/** Records $2 credits taken back for dispute $1. */
export const SET_CREDITS_TAKEN_SQL = `UPDATE payment_disputes SET "creditsTaken" = $2, "updatedAt" = now() WHERE id = $1`;

/** Records $2 credits given back for dispute $1. */
export const SET_CREDITS_RESTORED_SQL = `UPDATE payment_disputes SET "creditsRestored" = $2, "updatedAt" = now() WHERE id = $1`;
