// The statements of SessionCache's notification channel.

/**
 * `{n}`: the connections of this database whose application name is $1 and that are listening
 * (their last statement was a LISTEN): the processes a barrier waits for.
 */
export const LISTENERS_SQL = `SELECT count(*)::int AS n FROM pg_stat_activity
         WHERE datname = current_database() AND application_name = $1
           AND query LIKE 'LISTEN %'`;

/** Sends payload $2 on channel $1 (delivered to every listener at commit). */
export const NOTIFY_SQL = 'SELECT pg_notify($1, $2)';

/** Starts listening on `channel`: a constant identifier (LISTEN takes no parameter). */
export const listenSql = (channel: string): string => `LISTEN ${channel}`;
