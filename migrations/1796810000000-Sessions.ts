import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Sessions that end: every session token names its row here (`sid`), and a request is refused
 * once the row is revoked. Revoking fires the same `session_changed` notification as a changed
 * user row (migration SessionCache), with the session id as payload, so every process drops the
 * session from its in-memory cache at commit. `lastSeenAt` is written at most once a minute and
 * does not notify. `tokenVersion` is the user's at sign-in: a later bump (password or
 * two-factor change) ends the session, which the list shows.
 *
 * `used_mfa_tokens` holds the id (`jti`) of every mfaToken that completed a sign-in, until the
 * token expires, so a second verify with it is refused on every instance.
 */
export class Sessions1796810000000 implements MigrationInterface {
  name = 'Sessions1796810000000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE sessions (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        "userId" uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        "tokenVersion" integer NOT NULL,
        "createdAt" timestamptz NOT NULL DEFAULT now(),
        "lastSeenAt" timestamptz NOT NULL DEFAULT now(),
        "expiresAt" timestamptz NOT NULL,
        "userAgent" varchar(512),
        ip varchar(64),
        "revokedAt" timestamptz
      )`);
    await q.query(`CREATE INDEX sessions_user_created ON sessions ("userId", "createdAt" DESC)`);
    await q.query(`
      CREATE TRIGGER sessions_session_changed
      AFTER UPDATE OF "revokedAt" OR DELETE ON sessions
      FOR EACH ROW EXECUTE FUNCTION notify_session_changed()`);
    await q.query(`
      CREATE TABLE used_mfa_tokens (
        jti uuid PRIMARY KEY,
        "expiresAt" timestamptz NOT NULL
      )`);
    await q.query(`CREATE INDEX used_mfa_tokens_expires ON used_mfa_tokens ("expiresAt")`);
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE used_mfa_tokens`);
    await q.query(`DROP TRIGGER sessions_session_changed ON sessions`);
    await q.query(`DROP TABLE sessions`);
  }
}
