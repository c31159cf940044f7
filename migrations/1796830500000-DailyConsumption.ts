import { MigrationInterface, QueryRunner } from 'typeorm';

/** The zone the application counts days in: APP_TIMEZONE, as its configuration reads it. */
function appTimezone(): string {
  return process.env.APP_TIMEZONE?.trim() || 'UTC';
}

// `api_key_admits` before this migration (migration ApiKeys): it summed the key's CONSUMPTION
// entries of the day from the ledger. `down` restores it.
const SUMMING_KEY_ADMITS = `CREATE FUNCTION api_key_admits(p_key uuid, p_amount integer, p_day_start timestamptz)
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
       END $$`;

/**
 * Day counters of consumption, so the daily limits read one row instead of summing the day's
 * ledger on every request: `daily_consumption` per user and local day, `daily_key_consumption`
 * per API key and local day (the day is the local date of the entry's `createdAt` in
 * APP_TIMEZONE). The statements that write a CONSUMPTION entry add to them in the same
 * statement; the ledger stays the truth. Rows are small (one per active user, or key, per day);
 * days before yesterday are never read and can be pruned.
 *
 * The backfill counts yesterday and today (local) from the ledger: the admission and the credit
 * summary read only the current local day, and yesterday covers a migration run just before
 * midnight. Older days would cost a scan of the whole ledger for rows nobody reads (usage
 * statistics sum the ledger itself).
 *
 * `api_key_admits` now takes the local date and reads the key's counter row.
 */
export class DailyConsumption1796830500000 implements MigrationInterface {
  name = 'DailyConsumption1796830500000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "daily_consumption" (
        "userId" uuid NOT NULL,
        "day" date NOT NULL,
        "credits" integer NOT NULL,
        CONSTRAINT "PK_daily_consumption" PRIMARY KEY ("userId", "day"),
        CONSTRAINT "CHK_daily_consumption_credits" CHECK ("credits" >= 0),
        CONSTRAINT "FK_daily_consumption_user" FOREIGN KEY ("userId") REFERENCES "users"("id") ON DELETE CASCADE
      )`,
    );
    // No foreign key to api_keys (like credit_transactions."keyId"): its check would take a share
    // lock on the key row, which the admission locks FOR UPDATE while the settlement holds the
    // user row, so the two could deadlock. A deleted key's rows are pruned with old days.
    await queryRunner.query(
      `CREATE TABLE "daily_key_consumption" (
        "keyId" uuid NOT NULL,
        "day" date NOT NULL,
        "credits" integer NOT NULL,
        CONSTRAINT "PK_daily_key_consumption" PRIMARY KEY ("keyId", "day"),
        CONSTRAINT "CHK_daily_key_consumption_credits" CHECK ("credits" >= 0)
      )`,
    );
    const since = `(date_trunc('day', now() AT TIME ZONE $1) - interval '1 day') AT TIME ZONE $1`;
    await queryRunner.query(
      `INSERT INTO "daily_consumption" ("userId", "day", "credits")
       SELECT "userId", ("createdAt" AT TIME ZONE $1)::date, -SUM(amount)::int
       FROM "credit_transactions" WHERE type = 'CONSUMPTION' AND "createdAt" >= ${since}
       GROUP BY 1, 2 HAVING SUM(amount) < 0`,
      [appTimezone()],
    );
    await queryRunner.query(
      `INSERT INTO "daily_key_consumption" ("keyId", "day", "credits")
       SELECT "keyId", ("createdAt" AT TIME ZONE $1)::date, -SUM(amount)::int
       FROM "credit_transactions"
       WHERE type = 'CONSUMPTION' AND "keyId" IS NOT NULL AND "createdAt" >= ${since}
       GROUP BY 1, 2 HAVING SUM(amount) < 0`,
      [appTimezone()],
    );
    // Why a function: see migration ApiKeys (each query takes a fresh snapshot after the key row
    // lock, so admissions through one key take turns). The key's consumption of local day `p_day`
    // is one counter row; the settlement deletes the hold and adds to the counter in one
    // statement, so a fresh snapshot never counts a request twice or not at all.
    await queryRunner.query(`DROP FUNCTION api_key_admits(uuid, integer, timestamptz)`);
    await queryRunner.query(
      `CREATE FUNCTION api_key_admits(p_key uuid, p_amount integer, p_day date)
       RETURNS boolean LANGUAGE plpgsql VOLATILE AS $$
       DECLARE
         lim integer;
         spent integer;
       BEGIN
         SELECT "dailyCreditLimit" INTO lim FROM api_keys WHERE id = p_key FOR UPDATE;
         IF lim IS NULL THEN
           RETURN true;
         END IF;
         spent := COALESCE((SELECT credits FROM daily_key_consumption WHERE "keyId" = p_key AND day = p_day), 0);
         spent := spent + (SELECT COALESCE(SUM(amount), 0)::int FROM credit_holds WHERE "keyId" = p_key);
         RETURN spent + p_amount <= lim;
       END $$`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP FUNCTION api_key_admits(uuid, integer, date)`);
    await queryRunner.query(SUMMING_KEY_ADMITS);
    await queryRunner.query(`DROP TABLE "daily_key_consumption"`);
    await queryRunner.query(`DROP TABLE "daily_consumption"`);
  }
}
