import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `users."credentialsChangedAt"`: when the account's credentials last changed (a password change
 * or reset, a first proof of the address, "end all sessions"); null until then. A mailed link
 * issued before that moment is refused, whatever its own expiry.
 */
export class CredentialChanges1796842600000 implements MigrationInterface {
  name = 'CredentialChanges1796842600000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE users ADD "credentialsChangedAt" TIMESTAMP(3) WITH TIME ZONE`);
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE users DROP COLUMN "credentialsChangedAt"`);
  }
}
