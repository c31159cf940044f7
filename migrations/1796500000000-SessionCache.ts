import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Every process keeps recent session rows in memory (src/users/session-cache.ts) and
 * drops a user when this trigger says the row changed. Only the session's columns fire it (the
 * balance, written by every metered request, does not); a DELETE fires it too. `pg_notify` is
 * sent at commit, and not at all when the transaction rolls back.
 */
export class SessionCache1796500000000 implements MigrationInterface {
  name = 'SessionCache1796500000000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE FUNCTION notify_session_changed() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pg_notify('session_changed', OLD.id::text);
        RETURN NULL;
      END $$`);
    await q.query(`
      CREATE TRIGGER users_session_changed
      AFTER UPDATE OF email, name, role, "tokenVersion", preferences OR DELETE ON users
      FOR EACH ROW EXECUTE FUNCTION notify_session_changed()`);
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TRIGGER users_session_changed ON users`);
    await q.query(`DROP FUNCTION notify_session_changed()`);
  }
}
