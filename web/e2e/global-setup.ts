import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from 'pg';
import { startStripe, WEBHOOK_SECRET } from './stripe';
import {
  type OpenAiReply,
  OpenAiTestServer,
  type RecordedRequest,
} from '../../test/servers/openai-server';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The administrators' addresses (ADMIN_EMAILS): one per admin test, signed up by that test. */
export const ADMINS = [
  'admin-users',
  'admin-payments',
  'admin-upstreams',
  'admin-pages',
  'admin-models',
  'admin-audit',
  'admin-usage',
  'admin-redemption',
  'admin-prices',
].map((name) => `${name}@example.com`);

/**
 * The local OpenAI-protocol server of the e2e tests; a prompt holding `[stall]` gets one text
 * chunk and then nothing until the client goes away (for the Stop button).
 */
class ConsoleModel extends OpenAiTestServer {
  protected autoReply(req: RecordedRequest): Partial<OpenAiReply> {
    const messages = (req.body as { messages?: unknown[] } | undefined)?.messages ?? [];
    const stall = JSON.stringify(messages.at(-1) ?? '').includes('[stall]');
    return { ...super.autoReply(req), ...(stall ? { stallAfterChunks: 1 } : {}) };
  }
}

/** The embedded server's development database (see src/database/embedded-postgres.ts). */
const embeddedUrl = (port: string) => `postgres://postgres:password@127.0.0.1:${port}/app`;

/** A TCP port that was free a moment ago. */
function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const srv = createServer();
    srv.once('error', fail);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => done(port));
    });
  });
}

/** Runs `sql` on the server of `url` (its `postgres` database). */
async function admin(url: string, sql: string): Promise<void> {
  const target = new URL(url);
  target.pathname = '/postgres';
  const client = new Client({ connectionString: target.href });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/** Resolves once `url` answers 200; rejects with the output when the process ends first. */
async function ready(child: ChildProcess, url: string, output: () => string): Promise<void> {
  let exited = false;
  child.once('exit', () => (exited = true));
  for (;;) {
    if (exited) throw new Error(`The service ended before answering:\n${output()}`);
    try {
      if ((await fetch(url)).status === 200) return;
    } catch {
      // Not listening yet.
    }
    await new Promise((r) => setTimeout(r, 250));
  }
}

/**
 * Starts the local OpenAI-protocol server and the built service on free ports: a fresh database
 * on DATABASE_URL's server when set (dropped afterwards), else the embedded PostgreSQL in a
 * temporary folder; mails as files in a temporary MAIL_DIR. Sets CONSOLE_URL and MAIL_DIR for
 * the tests; the returned function stops everything.
 */
export default async function globalSetup(): Promise<() => Promise<void>> {
  const main = join(ROOT, 'dist', 'src', 'main.js');
  if (!existsSync(main) || !existsSync(join(ROOT, 'web', 'dist', 'index.html'))) {
    throw new Error('Build first: `npm run build` (or run `npm run test:web`, which does)');
  }
  const scratch = await mkdtemp(join(tmpdir(), 'console-e2e-'));
  // The embedded PostgreSQL runs as the OS user `postgres` when we are root: it must enter here.
  await chmod(scratch, 0o755);
  const mailDir = join(scratch, 'mail');
  const openai = await new ConsoleModel().start(0);
  openai.reply = { text: 'Hello from the test model.', chunks: 4, chunkDelayMs: 100 };
  openai.auto = true;

  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const stripe = await startStripe(() => baseUrl);
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: 'development',
    LOG_LEVEL: 'warn',
    PORT: String(port),
    APP_BASE_URL: baseUrl,
    WEB_CONCURRENCY: '1',
    AUTH_SECRET: randomBytes(32).toString('hex'),
    AUTH_RATE_LIMIT_PER_MINUTE: '10000',
    MAIL_DIR: mailDir,
    OPENAI_API_KEY: 'local',
    OPENAI_BASE_URL: openai.url,
    JOBS_POLL_INTERVAL_SECONDS: '0.5',
    // A stopped answer waits at most this long for the provider's usage (the stall never sends it).
    ABORT_DRAIN_MS: '1000',
    STRIPE_SECRET_KEY: stripe.secretKey,
    STRIPE_PUBLISHABLE_KEY: 'pk_test_console',
    STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
    STRIPE_API_BASE: stripe.url,
    // Each admin test signs up its own administrator (the role arrives with verification).
    ADMIN_EMAILS: ADMINS.join(','),
    FRONTEND_DIR: undefined,
  };
  let database: string | undefined;
  if (process.env.DATABASE_URL) {
    database = `console_e2e_${randomBytes(5).toString('hex')}`;
    await admin(process.env.DATABASE_URL, `CREATE DATABASE "${database}"`);
    const url = new URL(process.env.DATABASE_URL);
    url.pathname = `/${database}`;
    env.DATABASE_URL = url.href;
  } else {
    env.EMBEDDED_PG_DIR = join(scratch, 'pg');
    env.EMBEDDED_PG_PORT = String(await freePort());
  }
  for (const [key, value] of Object.entries(env)) if (value === undefined) delete env[key];

  const child = spawn(process.execPath, [main], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
  await ready(child, `${baseUrl}/health/ready`, () => output);

  process.env.CONSOLE_URL = baseUrl;
  process.env.MAIL_DIR = mailDir;
  process.env.CONSOLE_DATABASE_URL = env.DATABASE_URL ?? embeddedUrl(env.EMBEDDED_PG_PORT!);
  process.env.CONSOLE_OPENAI_URL = openai.url;
  return async () => {
    const ended = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await ended;
    await openai.stop();
    await stripe.stop();
    if (database)
      await admin(process.env.DATABASE_URL!, `DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
    await rm(scratch, { recursive: true, force: true });
    if (process.env.CONSOLE_E2E_LOG) console.log(output);
  };
}
