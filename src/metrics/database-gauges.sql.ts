import { JOBS_SCHEMA } from '../jobs/jobs.service';

// The statements of the gauges read from PostgreSQL at each scrape, beside DatabaseGauges.

/** `{n}`: credit holds open now. */
export const HOLDS_OPEN_SQL = 'SELECT count(*)::int AS n FROM credit_holds';

/**
 * `{n}`: users breaking the ledger invariant `credits + Σ open holds = Σ ledger` or
 * `credits ≥ 0` (0 when it holds). Scans every ledger row.
 */
export const LEDGER_VIOLATIONS_SQL = `SELECT count(*)::int AS n FROM users u
           LEFT JOIN (SELECT "userId", SUM(amount) AS s FROM credit_transactions GROUP BY "userId") l ON l."userId" = u.id
           LEFT JOIN (SELECT "userId", SUM(amount) AS s FROM credit_holds GROUP BY "userId") h ON h."userId" = u.id
          WHERE u.credits + COALESCE(h.s, 0) <> COALESCE(l.s, 0) OR u.credits < 0`;

/** `{present}`: whether table $1 (schema-qualified name) exists. */
export const TABLE_PRESENT_SQL = `SELECT to_regclass($1) IS NOT NULL AS present`;

/** The job table whose presence TABLE_PRESENT_SQL checks before JOB_QUEUES_SQL runs. */
export const JOB_TABLE = `${JOBS_SCHEMA}.job`;

/** `{queue, depth, failed}` per job queue: jobs waiting (created or retry) and failed. */
export const JOB_QUEUES_SQL = `SELECT name AS queue,
              count(*) FILTER (WHERE state IN ('created', 'retry'))::int AS depth,
              count(*) FILTER (WHERE state = 'failed')::int AS failed
         FROM ${JOBS_SCHEMA}.job GROUP BY name`;
