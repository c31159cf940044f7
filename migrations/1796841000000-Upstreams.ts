import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Upstreams (several per provider, with failover) and their shared health. `apiKeySealed` holds
 * the key sealed with ENCRYPTION_KEY, never plaintext. `upstream_states` is keyed by text because
 * the implicit upstreams built from the environment (`env:openai`, …) have no row of their own;
 * every instance reads and upserts it, so a cooldown seen by one is honoured by all.
 */
export class Upstreams1796841000000 implements MigrationInterface {
  name = 'Upstreams1796841000000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE upstreams (
        id uuid NOT NULL,
        provider character varying(20) NOT NULL,
        name character varying(64) NOT NULL,
        "baseUrl" character varying(2048) NOT NULL,
        "apiKeySealed" text,
        models text[] NOT NULL DEFAULT '{}',
        "modelMap" jsonb NOT NULL DEFAULT '{}',
        priority integer NOT NULL DEFAULT 0,
        weight integer NOT NULL DEFAULT 1,
        enabled boolean NOT NULL DEFAULT true,
        rpm integer,
        tpm integer,
        "createdAt" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(),
        "updatedAt" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(),
        CONSTRAINT "PK_upstreams" PRIMARY KEY (id),
        CONSTRAINT "UQ_upstreams_name" UNIQUE (name),
        CONSTRAINT "CHK_upstreams_provider"
          CHECK (provider IN ('openai', 'anthropic', 'google', 'openai-compatible')),
        CONSTRAINT "CHK_upstreams_weight" CHECK (weight >= 1),
        CONSTRAINT "CHK_upstreams_limits" CHECK ((rpm IS NULL OR rpm >= 1) AND (tpm IS NULL OR tpm >= 1))
      )`);
    await q.query(`
      CREATE TABLE upstream_states (
        "upstreamId" character varying(64) NOT NULL,
        state character varying(10) NOT NULL DEFAULT 'healthy',
        "consecutiveFailures" integer NOT NULL DEFAULT 0,
        "cooldownUntil" TIMESTAMP(3) WITH TIME ZONE,
        "cooldownMs" integer NOT NULL DEFAULT 0,
        "lastError" jsonb,
        "lastErrorAt" TIMESTAMP(3) WITH TIME ZONE,
        "updatedAt" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(),
        CONSTRAINT "PK_upstream_states" PRIMARY KEY ("upstreamId"),
        CONSTRAINT "CHK_upstream_states_state" CHECK (state IN ('healthy', 'cooling', 'failing'))
      )`);
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE upstream_states`);
    await q.query(`DROP TABLE upstreams`);
  }
}
