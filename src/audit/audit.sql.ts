// The statement writing `audit_events`, beside AuditService.

/**
 * Inserts one audit row: $1 actor id or null, $2 actor type, $3 action, $4 target type,
 * $5 target id or null, $6 details (JSON text), $7 request id or null, $8 client address or null.
 * Run with the caller's EntityManager, so the row commits or rolls back with its action.
 */
export const INSERT_AUDIT_EVENT_SQL = `INSERT INTO audit_events ("actorId", "actorType", action, "targetType", "targetId", details, "requestId", ip)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`;
