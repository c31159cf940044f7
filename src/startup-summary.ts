import type { INestApplication } from '@nestjs/common';
import { Logger } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { DataSource } from 'typeorm';
import { databaseConfig } from './database/database.config';
import { jobsConfig } from './jobs/jobs.config';
import { mailConfig } from './mail/mail.config';
import { latestMigrationSql } from './startup-summary.sql';
import { UpstreamTable } from './upstreams/upstream-table';

const logger = new Logger('Startup');

/**
 * Logs at info one line per concern once the app is up: the database (with DATABASE_URL; the
 * embedded server logs its own line as it starts), migrations, the job queue, mail and the
 * upstreams models are called through. Never a password or key: URLs are cut to their origin.
 * A failure to read one (the database went away) is logged at warn instead of that line.
 */
export async function logStartupSummary(app: INestApplication): Promise<void> {
  const db = app.get<ConfigType<typeof databaseConfig>>(databaseConfig.KEY);
  const jobs = app.get<ConfigType<typeof jobsConfig>>(jobsConfig.KEY);
  const mail = app.get<ConfigType<typeof mailConfig>>(mailConfig.KEY);
  if (db.url)
    logger.log(`Database: PostgreSQL at ${hostOf(db.url)}${pathOf(db.url)} (DATABASE_URL)`);
  await line('Migrations', async () => {
    const dataSource = app.get(DataSource);
    const table = dataSource.options.migrationsTableName ?? 'migrations';
    const [last] = await dataSource.query(latestMigrationSql(table));
    const total = dataSource.migrations.length;
    const how = db.migrationsRun
      ? 'run at start-up'
      : 'not run at start-up (DB_MIGRATIONS_RUN=false)';
    return `${total} known, latest applied ${last?.name ?? 'none'}; ${how}`;
  });
  logger.log(
    jobs.enabled
      ? `Queue: pg-boss on the same database, this instance works jobs (polling every ${jobs.pollIntervalSeconds} s)`
      : 'Queue: this instance works no jobs (JOBS_ENABLED=false)',
  );
  logger.log(
    mail.smtpUrl
      ? `Mail: SMTP at ${hostOf(mail.smtpUrl)}`
      : `Mail: no SMTP_URL, each mail is written to ${mail.dir} (.eml and .txt) and its link logged`,
  );
  await line('Upstreams', async () => {
    const enabled = (await app.get(UpstreamTable).all()).filter((u) => u.enabled);
    if (!enabled.length)
      return 'none: no provider key is set, so no model is available (set OPENAI_API_KEY, or run npm run mock:openai and use the variables it prints)';
    return enabled
      .map((u) => `${u.name} (${u.provider}${u.baseUrl ? ` at ${hostOf(u.baseUrl)}` : ''})`)
      .join(', ');
  });
}

/** Logs `concern: <what>` at info, or at warn why it could not be read. */
async function line(concern: string, what: () => Promise<string>): Promise<void> {
  try {
    logger.log(`${concern}: ${await what()}`);
  } catch (err) {
    logger.warn(`${concern}: could not be read (${(err as Error).message})`);
  }
}

/** `scheme://host:port` of a URL, without user and password; the text itself if it is none. */
function hostOf(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}`;
  } catch {
    return '(not a URL)';
  }
}

/** The path of a URL (a database name), or ''. */
function pathOf(url: string): string {
  try {
    return new URL(url).pathname;
  } catch {
    return '';
  }
}
