import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The operators' usage explorer (GET /api/admin/usage) reads every user's CONSUMPTION entries
 * in a time range: a partial index on their `createdAt` makes that a range scan instead of a
 * scan of the whole ledger. One user's range keeps using (userId, createdAt).
 */
export class AdminUsageIndex1796843470000 implements MigrationInterface {
  name = 'AdminUsageIndex1796843470000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE INDEX "IDX_credit_transactions_consumption_created" ON credit_transactions ("createdAt") WHERE type = 'CONSUMPTION'`,
    );
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX "IDX_credit_transactions_consumption_created"`);
  }
}
