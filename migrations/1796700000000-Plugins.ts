import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Registered MCP plugins. `headers` holds the sealed (AES-256-GCM, ENCRYPTION_KEY)
 * JSON of the headers sent to the server, never plaintext; the name is the prefix of the
 * plugin's tool names, so it is unique and of the shape those names allow.
 */
export class Plugins1796700000000 implements MigrationInterface {
  name = 'Plugins1796700000000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE plugins (
        id uuid NOT NULL,
        name character varying(32) NOT NULL,
        url character varying(2048) NOT NULL,
        headers text NOT NULL,
        enabled boolean NOT NULL DEFAULT true,
        "createdAt" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(),
        "updatedAt" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(),
        CONSTRAINT "PK_plugins" PRIMARY KEY (id),
        CONSTRAINT "UQ_plugins_name" UNIQUE (name),
        CONSTRAINT "CHK_plugins_name" CHECK (name ~ '^[a-z0-9_-]{1,32}$')
      )`);
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE plugins`);
  }
}
