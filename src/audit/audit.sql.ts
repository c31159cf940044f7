import { SqlParams, type SqlStatement } from '../database/sql-params';

// The statement writing `audit_events`, beside AuditService.

/**
 * Inserts one audit row; `details` is JSON text, the ids, request id and client address may be
 * null. Run with the caller's EntityManager, so the row commits or rolls back with its action.
 */
export function insertAuditEventSql(row: {
  actorId: string | null;
  actorType: string;
  action: string;
  targetType: string;
  targetId: string | null;
  details: string;
  requestId: string | null;
  ip: string | null;
}): SqlStatement {
  const p = new SqlParams();
  const sql = `INSERT INTO audit_events ("actorId", "actorType", action, "targetType", "targetId", details, "requestId", ip)
       VALUES (${p.add(row.actorId)}, ${p.add(row.actorType)}, ${p.add(row.action)}, ${p.add(row.targetType)}, ${p.add(row.targetId)}, ${p.add(row.details)}, ${p.add(row.requestId)}, ${p.add(row.ip)})`;
  return { sql, params: p.values };
}
