import { Logger, Module } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ConfigSliceModule } from '../config/config-slice.module';
import { type DatabaseConfig, databaseConfig } from './database.config';
import { ensureDatabase, startEmbeddedPostgres, type EmbeddedServer } from './embedded-postgres';
import { MIGRATIONS_GLOB } from './migrations-path';

const logger = new Logger('Database');
let embedded: EmbeddedServer | undefined;

/** Stops the embedded server, if this process started one. Call after the DataSource is closed. */
export async function stopEmbeddedDatabase(): Promise<void> {
  const server = embedded;
  embedded = undefined;
  await server?.stop();
}

/**
 * The PostgreSQL URL to use: DATABASE_URL, or a started embedded server's `app` database (started
 * once per process; with WEB_CONCURRENCY workers the primary starts it and hands its URL on).
 */
export async function resolveDatabaseUrl(db: DatabaseConfig): Promise<string> {
  if (db.url) return db.url;
  if (!embedded) {
    const started = Date.now();
    embedded = await startEmbeddedPostgres({ dir: db.embeddedDir, port: db.embeddedPort });
    await ensureDatabase(embedded.baseUrl, 'app');
    logger.log(
      `Embedded PostgreSQL on port ${db.embeddedPort} (${db.embeddedDir}), ready in ${Date.now() - started} ms`,
    );
  }
  return `${embedded.baseUrl}/app`;
}

/** TypeORM on PostgreSQL; migrations run at start-up unless DB_MIGRATIONS_RUN=false. */
@Module({
  imports: [
    TypeOrmModule.forRootAsync({
      imports: [ConfigSliceModule.forFeature(databaseConfig)],
      inject: [databaseConfig.KEY],
      useFactory: async (db: ConfigType<typeof databaseConfig>) => {
        return {
          type: 'postgres' as const,
          url: await resolveDatabaseUrl(db),
          autoLoadEntities: true,
          synchronize: false,
          uuidExtension: 'pgcrypto' as const,
          migrations: [MIGRATIONS_GLOB],
          migrationsRun: db.migrationsRun,
          migrationsTransactionMode: 'each' as const,
          extra: { max: db.poolSize },
          // Failed queries reach the error filter; TypeORM's own log would print their parameters.
          logging: false,
        };
      },
    }),
  ],
})
export class DatabaseModule {}
