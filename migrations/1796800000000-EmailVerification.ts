import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Proven email addresses and the single-use links that prove them.
 *
 * `users."emailVerifiedAt"`: when the address was proven (a link from a mail was followed, or a
 * social provider reported it verified); null until then. Existing accounts start unverified,
 * except those with a linked social identity: social login only ever linked or created an
 * account by a provider-verified address equal to `users.email`, so that address is proven.
 *
 * `account_tokens`: one row per link sent by mail (`purpose` verify_email, reset_password,
 * change_email). Only the SHA-256 of the 32 random bytes is stored; `usedAt` makes a link single
 * use, `expiresAt` bounds its life; `newEmail` is the address an email change moves to.
 */
export class EmailVerification1796800000000 implements MigrationInterface {
  name = 'EmailVerification1796800000000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE users ADD "emailVerifiedAt" TIMESTAMP(3) WITH TIME ZONE`);
    await q.query(`
      UPDATE users u SET "emailVerifiedAt" = now()
      WHERE EXISTS (SELECT 1 FROM accounts a WHERE a."userId" = u.id)`);
    await q.query(`
      CREATE TABLE account_tokens (
        id uuid NOT NULL DEFAULT gen_random_uuid(),
        "userId" uuid NOT NULL,
        purpose character varying(20) NOT NULL,
        "tokenHash" bytea NOT NULL,
        "newEmail" character varying(320),
        "expiresAt" TIMESTAMP(3) WITH TIME ZONE NOT NULL,
        "usedAt" TIMESTAMP(3) WITH TIME ZONE,
        "createdAt" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(),
        CONSTRAINT "PK_account_tokens" PRIMARY KEY (id),
        CONSTRAINT "UQ_account_tokens_hash" UNIQUE ("tokenHash"),
        CONSTRAINT "CHK_account_tokens_purpose"
          CHECK (purpose IN ('verify_email', 'reset_password', 'change_email')),
        CONSTRAINT "FK_account_tokens_user" FOREIGN KEY ("userId")
          REFERENCES users(id) ON DELETE CASCADE
      )`);
    await q.query(
      `CREATE INDEX "IDX_account_tokens_user_purpose" ON account_tokens ("userId", purpose)`,
    );
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE account_tokens`);
    await q.query(`ALTER TABLE users DROP COLUMN "emailVerifiedAt"`);
  }
}
