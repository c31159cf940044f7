import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Chargebacks: a purchase may be `disputed`, and `payment_disputes` keeps each dispute's state
 * so that its events apply once and in any order: `creditsTaken` is set by the clawback (null
 * until then, 0 when nothing could be taken), `creditsRestored` by the give-back of a won
 * dispute, and `status` is the latest Stripe status seen (a close seen first stops the clawback
 * of a `created` delivered after it). `amount` (minor units) and `currency` are the disputed
 * amount, for the ledger entry of a clawback made later than the event (a grant replayed after
 * the dispute).
 */
export class PaymentDisputes1796820000000 implements MigrationInterface {
  name = 'PaymentDisputes1796820000000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE purchases DROP CONSTRAINT "CHK_purchases_status"`);
    await q.query(
      `ALTER TABLE purchases ADD CONSTRAINT "CHK_purchases_status" CHECK (status IN ('pending', 'processing', 'succeeded', 'failed', 'canceled', 'refunded', 'disputed'))`,
    );
    await q.query(`
      CREATE TABLE payment_disputes (
        id character varying(255) NOT NULL,
        "paymentIntentId" character varying(255) NOT NULL,
        "chargeId" character varying(255),
        amount integer,
        currency character varying(3),
        status character varying(32) NOT NULL,
        "creditsTaken" integer,
        "creditsRestored" integer,
        "createdAt" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(),
        "updatedAt" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(),
        CONSTRAINT "PK_payment_disputes" PRIMARY KEY (id),
        CONSTRAINT "CHK_payment_disputes_credits" CHECK (
          ("creditsTaken" IS NULL OR "creditsTaken" >= 0)
          AND ("creditsRestored" IS NULL OR "creditsRestored" >= 0))
      )`);
    await q.query(
      `CREATE INDEX "IDX_payment_disputes_payment_intent" ON payment_disputes ("paymentIntentId")`,
    );
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE payment_disputes`);
    await q.query(`UPDATE purchases SET status = 'succeeded' WHERE status = 'disputed'`);
    await q.query(`ALTER TABLE purchases DROP CONSTRAINT "CHK_purchases_status"`);
    await q.query(
      `ALTER TABLE purchases ADD CONSTRAINT "CHK_purchases_status" CHECK (status IN ('pending', 'processing', 'succeeded', 'failed', 'canceled', 'refunded'))`,
    );
  }
}
