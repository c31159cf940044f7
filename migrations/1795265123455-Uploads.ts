import { MigrationInterface, QueryRunner } from 'typeorm';

export class Uploads1795265123455 implements MigrationInterface {
  name = 'Uploads1795265123455';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "uploads" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "userId" uuid NOT NULL, "filename" character varying(255) NOT NULL, "originalName" character varying(255) NOT NULL, "size" bigint NOT NULL, "contentType" character varying(100) NOT NULL, "createdAt" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_d1781d1eedd7459314f60f39bd3" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "IDX_uploads_user" ON "uploads" ("userId") `);
    await queryRunner.query(`CREATE UNIQUE INDEX "UQ_uploads_filename" ON "uploads" ("filename") `);
    await queryRunner.query(
      `ALTER TABLE "uploads" ADD CONSTRAINT "FK_632458210d8f0159857b0f05707" FOREIGN KEY ("userId") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "uploads" DROP CONSTRAINT "FK_632458210d8f0159857b0f05707"`,
    );
    await queryRunner.query(`DROP INDEX "public"."UQ_uploads_filename"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_uploads_user"`);
    await queryRunner.query(`DROP TABLE "uploads"`);
  }
}
