import { SqlParams, type SqlStatement } from '../database/sql-params';
import type { FindingKind } from './reconciliation-finding.entity';

// The raw statements on `reconciliation_findings`, beside ReconciliationService.

/**
 * Records a finding of `kind` for payment `reference`, or, when it was found before, moves its
 * `lastSeenAt` and `processorStatus` (one row per payment and kind). Returns `inserted`: true
 * only for a new finding, so each mismatch is counted once however many runs see it.
 */
export function upsertFindingSql(f: {
  kind: FindingKind;
  reference: string;
  eventId: string | null;
  userId: string | null;
  amount: number | null;
  currency: string | null;
  processorStatus: string;
}): SqlStatement {
  const p = new SqlParams();
  const sql = `INSERT INTO reconciliation_findings (kind, reference, "eventId", "userId", amount, currency, "processorStatus")
       VALUES (${p.add(f.kind)}, ${p.add(f.reference)}, ${p.add(f.eventId)}, ${p.add(f.userId)}::uuid, ${p.add(f.amount)}, ${p.add(f.currency)}, ${p.add(f.processorStatus)})
       ON CONFLICT (kind, reference) DO UPDATE SET "lastSeenAt" = now(), "processorStatus" = EXCLUDED."processorStatus"
       RETURNING (xmax = 0) AS inserted`;
  return { sql, params: p.values };
}
