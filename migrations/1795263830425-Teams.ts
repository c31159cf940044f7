import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Teams: teams, team_members, team_invitations, and the foreign key that shares a chat
 * with a team (ON DELETE SET NULL: deleting a team leaves its chats with their owners).
 * The trigger keeps the "a team never loses its last OWNER" rule when a cascade (a deleted user)
 * removes the last OWNER: the longest-standing ADMIN, else MEMBER, becomes OWNER, and a team
 * left with no member is deleted. The API itself refuses such changes with 409 LAST_OWNER.
 */
export class Teams1795263830425 implements MigrationInterface {
  name = 'Teams1795263830425';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "teams" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "name" character varying(100) NOT NULL, "description" character varying(1000), "createdAt" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(), "updatedAt" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_7e5523774a38b08a6236d322403" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE TABLE "team_members" ("teamId" uuid NOT NULL, "userId" uuid NOT NULL, "role" character varying(10) NOT NULL, "createdAt" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "CHK_team_members_role" CHECK ("role" IN ('OWNER', 'ADMIN', 'MEMBER')), CONSTRAINT "PK_team_members" PRIMARY KEY ("teamId", "userId"))`,
    );
    await queryRunner.query(`CREATE INDEX "IDX_team_members_user" ON "team_members" ("userId") `);
    await queryRunner.query(
      `CREATE TABLE "team_invitations" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "teamId" uuid NOT NULL, "email" character varying(320) NOT NULL, "role" character varying(10) NOT NULL, "tokenHash" character varying(64) NOT NULL, "invitedBy" uuid, "expiresAt" TIMESTAMP(3) WITH TIME ZONE NOT NULL, "acceptedAt" TIMESTAMP(3) WITH TIME ZONE, "revokedAt" TIMESTAMP(3) WITH TIME ZONE, "createdAt" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "CHK_team_invitations_role" CHECK ("role" IN ('OWNER', 'ADMIN', 'MEMBER')), CONSTRAINT "PK_c14b443d431077f89344a3fd262" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "IDX_team_invitations_email" ON "team_invitations" ("email") `,
    );
    await queryRunner.query(
      `CREATE INDEX "IDX_team_invitations_team" ON "team_invitations" ("teamId", "createdAt") `,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "UQ_team_invitations_token" ON "team_invitations" ("tokenHash") `,
    );
    await queryRunner.query(
      `CREATE INDEX "IDX_chats_team_updated" ON "chats" ("teamId", "updatedAt", "id") `,
    );
    await queryRunner.query(
      `ALTER TABLE "team_members" ADD CONSTRAINT "FK_6d1c8c7f705803f0711336a5c33" FOREIGN KEY ("teamId") REFERENCES "teams"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "team_members" ADD CONSTRAINT "FK_0a72b849753a046462b4c5a8ec2" FOREIGN KEY ("userId") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "team_invitations" ADD CONSTRAINT "FK_51467b016e4b6bc51f2d2f080a8" FOREIGN KEY ("teamId") REFERENCES "teams"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "team_invitations" ADD CONSTRAINT "FK_c13981293192b9b825f489e86d7" FOREIGN KEY ("invitedBy") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE NO ACTION`,
    );
    // No team existed before this migration, so any stored teamId is dangling.
    await queryRunner.query(`UPDATE "chats" SET "teamId" = NULL WHERE "teamId" IS NOT NULL`);
    await queryRunner.query(
      `ALTER TABLE "chats" ADD CONSTRAINT "FK_0d243df0be4bf76b3418d467f09" FOREIGN KEY ("teamId") REFERENCES "teams"("id") ON DELETE SET NULL ON UPDATE NO ACTION`,
    );
    await queryRunner.query(`
      CREATE FUNCTION "team_members_keep_owner"() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF OLD."role" <> 'OWNER'
          OR NOT EXISTS (SELECT 1 FROM "teams" WHERE "id" = OLD."teamId")
          OR EXISTS (SELECT 1 FROM "team_members" WHERE "teamId" = OLD."teamId" AND "role" = 'OWNER')
        THEN
          RETURN NULL;
        END IF;
        UPDATE "team_members" SET "role" = 'OWNER'
        WHERE ("teamId", "userId") = (
          SELECT "teamId", "userId" FROM "team_members" WHERE "teamId" = OLD."teamId"
          ORDER BY ("role" = 'ADMIN') DESC, "createdAt", "userId" LIMIT 1
        );
        IF NOT FOUND THEN
          DELETE FROM "teams" WHERE "id" = OLD."teamId";
        END IF;
        RETURN NULL;
      END $$`);
    await queryRunner.query(
      `CREATE TRIGGER "TRG_team_members_keep_owner" AFTER DELETE ON "team_members" FOR EACH ROW EXECUTE FUNCTION "team_members_keep_owner"()`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TRIGGER "TRG_team_members_keep_owner" ON "team_members"`);
    await queryRunner.query(`DROP FUNCTION "team_members_keep_owner"()`);
    await queryRunner.query(`ALTER TABLE "chats" DROP CONSTRAINT "FK_0d243df0be4bf76b3418d467f09"`);
    await queryRunner.query(
      `ALTER TABLE "team_invitations" DROP CONSTRAINT "FK_c13981293192b9b825f489e86d7"`,
    );
    await queryRunner.query(
      `ALTER TABLE "team_invitations" DROP CONSTRAINT "FK_51467b016e4b6bc51f2d2f080a8"`,
    );
    await queryRunner.query(
      `ALTER TABLE "team_members" DROP CONSTRAINT "FK_0a72b849753a046462b4c5a8ec2"`,
    );
    await queryRunner.query(
      `ALTER TABLE "team_members" DROP CONSTRAINT "FK_6d1c8c7f705803f0711336a5c33"`,
    );
    await queryRunner.query(`DROP INDEX "public"."IDX_chats_team_updated"`);
    await queryRunner.query(`DROP INDEX "public"."UQ_team_invitations_token"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_team_invitations_team"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_team_invitations_email"`);
    await queryRunner.query(`DROP TABLE "team_invitations"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_team_members_user"`);
    await queryRunner.query(`DROP TABLE "team_members"`);
    await queryRunner.query(`DROP TABLE "teams"`);
  }
}
