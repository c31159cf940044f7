import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Requests and tokens sent to each upstream per clock minute, added up by every instance, so an
 * upstream's `rpm` and `tpm` ceilings hold across workers and instances. Keyed by text like
 * `upstream_states`; rows older than an hour are deleted by the instances as minutes pass.
 */
export class UpstreamUsage1796842000000 implements MigrationInterface {
  name = 'UpstreamUsage1796842000000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE upstream_usage (
        "upstreamId" character varying(64) NOT NULL,
        minute TIMESTAMP(0) WITH TIME ZONE NOT NULL,
        requests integer NOT NULL DEFAULT 0,
        tokens bigint NOT NULL DEFAULT 0,
        CONSTRAINT "PK_upstream_usage" PRIMARY KEY ("upstreamId", minute)
      )`);
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE upstream_usage`);
  }
}
