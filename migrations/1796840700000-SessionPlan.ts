import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The session row now carries the user's plan (the `/v1` output caps read it with the session),
 * so a change of plan must drop the cached row like the other session columns: the `users`
 * trigger fires on `plan` too.
 */
export class SessionPlan1796840700000 implements MigrationInterface {
  name = 'SessionPlan1796840700000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`DROP TRIGGER users_session_changed ON users`);
    await q.query(`
      CREATE TRIGGER users_session_changed
      AFTER UPDATE OF email, name, role, "tokenVersion", preferences, plan OR DELETE ON users
      FOR EACH ROW EXECUTE FUNCTION notify_session_changed()`);
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TRIGGER users_session_changed ON users`);
    await q.query(`
      CREATE TRIGGER users_session_changed
      AFTER UPDATE OF email, name, role, "tokenVersion", preferences OR DELETE ON users
      FOR EACH ROW EXECUTE FUNCTION notify_session_changed()`);
  }
}
