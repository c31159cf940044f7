import { SqlParams, type SqlStatement } from '../database/sql-params';

// The raw statements on `subscriptions`, beside SubscriptionsService.

/**
 * Takes the transaction-scoped advisory lock of key $1 (`plan:<userId>`): serialises the plan
 * changes of one user until commit.
 */
export const PLAN_LOCK_SQL = 'SELECT pg_advisory_xact_lock(hashtext($1))';

/**
 * Upserts subscription `processorId` as seen at `stateAt` (Unix seconds; `currentPeriodEnd` too,
 * or null). An existing row changes only when its status is not one of `terminal` and its state
 * is not newer, so a late event never undoes a later one and a canceled subscription stays so.
 * Returns its `id`, no row when the state was stale.
 */
export function upsertSubscriptionSql(s: {
  processorId: string;
  userId: string;
  customerId: string;
  priceId: string | null;
  plan: string | null;
  status: string;
  currentPeriodEnd: number | null;
  stateAt: number;
  terminal: string[];
}): SqlStatement {
  const p = new SqlParams();
  const sql = `INSERT INTO subscriptions
         ("processorId", "userId", "customerId", "priceId", plan, status, "currentPeriodEnd", "stateAt")
       VALUES (${p.add(s.processorId)}, ${p.add(s.userId)}, ${p.add(s.customerId)}, ${p.add(s.priceId)}, ${p.add(s.plan)}, ${p.add(s.status)}, to_timestamp(${p.add(s.currentPeriodEnd)}), to_timestamp(${p.add(s.stateAt)}))
       ON CONFLICT ("processorId") DO UPDATE SET
         "customerId" = EXCLUDED."customerId", "priceId" = EXCLUDED."priceId",
         plan = EXCLUDED.plan, status = EXCLUDED.status,
         "currentPeriodEnd" = EXCLUDED."currentPeriodEnd", "stateAt" = EXCLUDED."stateAt",
         "updatedAt" = now()
       WHERE subscriptions.status <> ALL(${p.add(s.terminal)}) AND subscriptions."stateAt" <= EXCLUDED."stateAt"
       RETURNING id`;
  return { sql, params: p.values };
}

/** `{plan}` of each subscription of user $1 with a plan and one of the statuses $2 (text[]). */
export const GRANTING_PLANS_SQL = `SELECT plan FROM subscriptions
       WHERE "userId" = $1 AND plan IS NOT NULL AND status = ANY($2)`;

/** One row when user $1 has a subscription with a plan in one of the statuses $2 (text[]). */
export const LIVE_SUBSCRIPTION_SQL = `SELECT 1 FROM subscriptions
       WHERE "userId" = $1 AND plan IS NOT NULL AND status = ANY($2) LIMIT 1`;
