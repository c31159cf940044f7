import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Personal API keys (stored only as a SHA-256 hash, looked up by their public prefix),
 * the key of each hold and ledger entry made through one, and `api_key_admits`, the per-key
 * daily limit check that the admission statement calls.
 */
export class ApiKeys1796000000000 implements MigrationInterface {
  name = 'ApiKeys1796000000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "api_keys" (
        "id" uuid NOT NULL DEFAULT gen_random_uuid(),
        "userId" uuid NOT NULL,
        "name" character varying(100) NOT NULL,
        "prefix" character varying(16) NOT NULL,
        "keyHash" bytea NOT NULL,
        "scopes" text[] NOT NULL,
        "dailyCreditLimit" integer,
        "expiresAt" TIMESTAMP(3) WITH TIME ZONE,
        "lastUsedAt" TIMESTAMP(3) WITH TIME ZONE,
        "revokedAt" TIMESTAMP(3) WITH TIME ZONE,
        "createdAt" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(),
        CONSTRAINT "PK_api_keys" PRIMARY KEY ("id"),
        CONSTRAINT "UQ_api_keys_hash" UNIQUE ("keyHash"),
        CONSTRAINT "CHK_api_keys_daily_limit" CHECK ("dailyCreditLimit" > 0),
        CONSTRAINT "FK_api_keys_user" FOREIGN KEY ("userId") REFERENCES "users"("id") ON DELETE CASCADE
      )`,
    );
    await queryRunner.query(`CREATE INDEX "IDX_api_keys_prefix" ON "api_keys" ("prefix")`);
    await queryRunner.query(
      `CREATE INDEX "IDX_api_keys_user_created" ON "api_keys" ("userId", "createdAt")`,
    );
    await queryRunner.query(`ALTER TABLE "credit_holds" ADD "keyId" uuid`);
    await queryRunner.query(`ALTER TABLE "credit_transactions" ADD "keyId" uuid`);
    await queryRunner.query(
      `CREATE INDEX "IDX_credit_holds_key" ON "credit_holds" ("keyId") WHERE "keyId" IS NOT NULL`,
    );
    await queryRunner.query(
      `CREATE INDEX "IDX_credit_transactions_key_created" ON "credit_transactions" ("keyId", "createdAt") WHERE "keyId" IS NOT NULL`,
    );
    // Why a function: the admission statement's own snapshot is taken before it waits for any
    // lock, so a plain subquery would not see the holds of admissions that committed while it
    // waited. A VOLATILE function's queries each take a fresh snapshot (READ COMMITTED), and the
    // key row lock makes admissions through one key take turns: parallel requests cannot pass
    // the key's limit. Credits (integer) consumed today plus held, plus `p_amount`, must fit.
    await queryRunner.query(
      `CREATE FUNCTION api_key_admits(p_key uuid, p_amount integer, p_day_start timestamptz)
       RETURNS boolean LANGUAGE plpgsql VOLATILE AS $$
       DECLARE
         lim integer;
         spent integer;
       BEGIN
         SELECT "dailyCreditLimit" INTO lim FROM api_keys WHERE id = p_key FOR UPDATE;
         IF lim IS NULL THEN
           RETURN true;
         END IF;
         SELECT COALESCE(-SUM(amount), 0)::int INTO spent FROM credit_transactions
           WHERE "keyId" = p_key AND type = 'CONSUMPTION'
             AND "createdAt" >= p_day_start AND "createdAt" < p_day_start + interval '1 day';
         spent := spent + (SELECT COALESCE(SUM(amount), 0)::int FROM credit_holds WHERE "keyId" = p_key);
         RETURN spent + p_amount <= lim;
       END $$`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP FUNCTION api_key_admits(uuid, integer, timestamptz)`);
    await queryRunner.query(`DROP INDEX "IDX_credit_transactions_key_created"`);
    await queryRunner.query(`DROP INDEX "IDX_credit_holds_key"`);
    await queryRunner.query(`ALTER TABLE "credit_transactions" DROP COLUMN "keyId"`);
    await queryRunner.query(`ALTER TABLE "credit_holds" DROP COLUMN "keyId"`);
    await queryRunner.query(`DROP TABLE "api_keys"`);
  }
}
