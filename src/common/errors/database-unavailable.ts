/** PostgreSQL SQLSTATEs of a server that is going away, starting up or refusing connections. */
const UNAVAILABLE_SQLSTATES = new Set([
  '57P01', // admin_shutdown: the server is stopping
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now: starting up or shutting down
  '53300', // too_many_connections
]);

/** Socket errors of a connection that could not be made or broke. */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/** node-postgres and pg-pool messages of a lost connection or a pool that could not connect. */
const UNAVAILABLE_MESSAGE =
  /Connection terminated|timeout exceeded when trying to connect|is not queryable/i;

/**
 * True when `err` means the database cannot be reached right now (as opposed to a query that
 * is wrong): SQLSTATE class 08 (connection exception), 57P01/57P02/57P03, 53300, a socket
 * error such as ECONNREFUSED, or node-postgres' "Connection terminated…" and pool-timeout
 * messages. Looks through TypeORM's QueryFailedError (`driverError`) and `cause`.
 */
export function isDatabaseUnavailable(err: unknown, depth = 0): boolean {
  if (!err || typeof err !== 'object' || depth > 3) return false;
  const e = err as { code?: unknown; message?: unknown; driverError?: unknown; cause?: unknown };
  const code = typeof e.code === 'string' ? e.code : '';
  if (code.startsWith('08') && code.length === 5) return true;
  if (UNAVAILABLE_SQLSTATES.has(code) || NETWORK_CODES.has(code)) return true;
  if (typeof e.message === 'string' && UNAVAILABLE_MESSAGE.test(e.message)) return true;
  return (
    isDatabaseUnavailable(e.driverError, depth + 1) || isDatabaseUnavailable(e.cause, depth + 1)
  );
}
