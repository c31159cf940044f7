import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Client } from 'pg';
import type { EmbeddedServer } from '../../src/database/embedded-postgres';
import { SmtpTestServer } from '../../test/servers/smtp-server';
import type { BenchReply } from '../servers/provider-server';
import { connect, createBenchDatabase, raiseBalance, seedChats, startBenchDatabase } from './db';
import {
  type Child,
  freePort,
  listeningPort,
  spawnNode,
  stopAllChildren,
  stopChild,
  waitForHttp,
} from './processes';

export const ROOT = resolve(__dirname, '..', '..');
const DATA = resolve(ROOT, '.data');
export const UPLOAD_DIR = resolve(DATA, 'bench-uploads');
export const PROFILE_DIR = resolve(ROOT, 'bench', 'profiles');
/** The build to measure: this checkout's, or another's (`BENCH_SERVICE_ENTRY`, to compare two). */
export const SERVICE_ENTRY = process.env.BENCH_SERVICE_ENTRY ?? resolve(ROOT, 'dist/src/main.js');
const PASSWORD = 'correct horse battery staple';

export interface BenchUser {
  id: string;
  token: string;
}

/** Everything the scenarios use; `close()` stops all of it. */
export interface BenchEnv {
  service: Child;
  /** The postmaster's pid (it and its backends are PostgreSQL's CPU). */
  pgPid: number;
  serviceOrigin: string;
  bareOrigin: string;
  providerOrigin: string;
  /** The bare pass-through proxy (bench/servers/bare-proxy.ts): same bodies, no metering. */
  proxy: Child;
  proxyOrigin: string;
  db: Client;
  /** The user with 50 chats × 20 messages. */
  chatsUser: BenchUser;
  /** PRO users with a large balance, for the AI scenarios (one per connection in turn). */
  aiUsers: BenchUser[];
  seeded: { chats: number; messages: number };
  cpuProfile?: string;
  /**
   * Starts another instance of the service on the same database and provider, with the same
   * secrets (the users' sessions work on it) and `env` over the bench's settings; `args` go to
   * node (e.g. a CPU profile); `entry` another build's `main.js` (default: the build measured).
   * The caller stops it (stopChild).
   */
  startVariant(
    name: string,
    env: NodeJS.ProcessEnv,
    args?: string[],
    entry?: string,
  ): Promise<{ child: Child; origin: string }>;
  /**
   * A fresh database `name` on the bench's PostgreSQL (dropped first if it exists, with
   * pg_stat_statements); its URL, for a variant's `DATABASE_URL`.
   */
  freshDatabase(name: string): Promise<string>;
  setReply(reply: BenchReply): Promise<void>;
  close(): Promise<void>;
}

export interface SetupOptions {
  aiUsers: number;
  credits: number;
  chats: number;
  messagesPerChat: number;
  uploadMaxBytes: number;
  cpuProf: boolean;
  log: (line: string) => void;
  /** PostgreSQL's own log lines (silent by default). */
  pgLog?: (line: string) => void;
}

const tsNode = (file: string) => ['-r', 'ts-node/register/transpile-only', file];

/**
 * Starts the embedded PostgreSQL (`.data/pg-bench`, free port, fresh database), the local
 * OpenAI server and the bare Node server (each its own process), and the production build
 * (`dist/src/main.js`) against them; then signs up and seeds the users.
 */
export async function setup(o: SetupOptions): Promise<BenchEnv> {
  let pg: EmbeddedServer | undefined;
  let db: Client | undefined;
  // Production requires SMTP_URL: the sign-ups' verification mails go to a local SMTP server.
  const smtp = new SmtpTestServer();
  const close = async () => {
    await stopAllChildren();
    await smtp.stop().catch(() => undefined);
    await db?.end().catch(() => undefined);
    await pg?.stop().catch(() => undefined);
    rmSync(UPLOAD_DIR, { recursive: true, force: true });
  };
  try {
    mkdirSync(DATA, { recursive: true });
    const started = await startBenchDatabase(resolve(DATA, 'pg-bench'), await freePort(), o.pgLog);
    pg = started.server;
    o.log(`PostgreSQL on ${pg.baseUrl.replace(/:[^:@/]*@/, ':***@')}, database bench`);

    const childEnv = { PATH: process.env.PATH, HOME: process.env.HOME };
    const provider = spawnNode(
      'provider',
      tsNode(resolve(ROOT, 'bench/servers/provider-server.ts')),
      childEnv,
      resolve(DATA, 'bench-provider.log'),
    );
    const bare = spawnNode(
      'bare-node',
      tsNode(resolve(ROOT, 'bench/servers/bare-server.ts')),
      childEnv,
      resolve(DATA, 'bench-bare.log'),
    );
    const providerOrigin = `http://127.0.0.1:${await listeningPort(provider)}`;
    const bareOrigin = `http://127.0.0.1:${await listeningPort(bare)}`;
    const proxy = spawnNode(
      'bare-proxy',
      tsNode(resolve(ROOT, 'bench/servers/bare-proxy.ts')),
      { ...childEnv, PROVIDER_URL: `${providerOrigin}/v1` },
      resolve(DATA, 'bench-proxy.log'),
    );
    const proxyOrigin = `http://127.0.0.1:${await listeningPort(proxy)}`;

    await smtp.start();
    const secrets = {
      AUTH_SECRET: randomBytes(32).toString('hex'),
      ENCRYPTION_KEY: randomBytes(32).toString('base64'),
      // Production requires a guard on /metrics (METRICS_TOKEN or METRICS_PORT);
      // BENCH_METRICS_TOKEN to scrape it.
      METRICS_TOKEN: process.env.BENCH_METRICS_TOKEN ?? randomBytes(16).toString('hex'),
    };
    rmSync(UPLOAD_DIR, { recursive: true, force: true });
    const serviceEnv = (port: number): NodeJS.ProcessEnv => ({
      ...childEnv,
      NODE_ENV: 'production',
      PORT: String(port),
      APP_BASE_URL: `http://127.0.0.1:${port}`,
      DATABASE_URL: started.url,
      LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'warn',
      ...secrets,
      AUTH_RATE_LIMIT_PER_MINUTE: '100000',
      API_KEY_RPM: '100000000',
      ...smtp.env(),
      OPENAI_API_KEY: 'sk-bench-local',
      OPENAI_BASE_URL: `${providerOrigin}/v1`,
      UPLOAD_DIR,
      UPLOAD_MAX_BYTES: String(o.uploadMaxBytes),
      // A large-upload scenario (BENCH_UPLOAD_MB) may pass the default 1 GiB per-user quota.
      UPLOAD_QUOTA_BYTES: String(Math.max(1024 ** 3, 4 * o.uploadMaxBytes)),
      ...(process.env.DB_POOL_SIZE ? { DB_POOL_SIZE: process.env.DB_POOL_SIZE } : {}),
      // Natural batching of the money statements: on by default; `false` to compare.
      ...(process.env.BATCH_STATEMENTS ? { BATCH_STATEMENTS: process.env.BATCH_STATEMENTS } : {}),
      // Workers: the service's default unless set; one under the CPU profiler, which writes
      // one profile per process.
      ...(process.env.WEB_CONCURRENCY || o.cpuProf
        ? { WEB_CONCURRENCY: process.env.WEB_CONCURRENCY ?? '1' }
        : {}),
    });
    const nodeArgs: string[] = [];
    let cpuProfile: string | undefined;
    if (o.cpuProf) {
      mkdirSync(PROFILE_DIR, { recursive: true });
      cpuProfile = `service-${new Date().toISOString().replace(/[:.]/g, '-')}.cpuprofile`;
      nodeArgs.push('--cpu-prof', `--cpu-prof-dir=${PROFILE_DIR}`, `--cpu-prof-name=${cpuProfile}`);
    }
    const port = await freePort();
    const serviceOrigin = `http://127.0.0.1:${port}`;
    const service = spawnNode(
      'service',
      [...nodeArgs, SERVICE_ENTRY],
      serviceEnv(port),
      resolve(DATA, 'bench-service.log'),
    );
    await waitForHttp(service, `${serviceOrigin}/health/ready`);
    o.log(`service pid ${service.pid} on ${serviceOrigin}${cpuProfile ? ' (CPU profile on)' : ''}`);

    db = await connect(started.url);
    const chatsUser = await signup(serviceOrigin, 'bench-chats@example.com');
    const aiUsers: BenchUser[] = [];
    for (let i = 1; i <= o.aiUsers; i++) {
      aiUsers.push(await signup(serviceOrigin, `bench-ai-${i}@example.com`));
    }
    await raiseBalance(
      db,
      [chatsUser, ...aiUsers].map((u) => u.id),
      o.credits,
    );
    // API keys need a verified address; nobody reads the bench users' mails, so mark them here.
    await db.query(`UPDATE users SET "emailVerifiedAt" = now() WHERE id = ANY($1::uuid[])`, [
      [chatsUser, ...aiUsers].map((u) => u.id),
    ]);
    const seeded = await seedChats(db, chatsUser.id, o.chats, o.messagesPerChat);
    o.log(`seeded ${seeded.chats} chats, ${seeded.messages} messages; ${o.aiUsers} AI users`);

    const pgPid = Number(
      readFileSync(resolve(DATA, 'pg-bench', 'postmaster.pid'), 'utf8').split('\n')[0],
    );
    return {
      service,
      pgPid,
      serviceOrigin,
      bareOrigin,
      providerOrigin,
      proxy,
      proxyOrigin,
      db,
      chatsUser,
      aiUsers,
      seeded,
      cpuProfile,
      async startVariant(
        name: string,
        env: NodeJS.ProcessEnv,
        args: string[] = [],
        entry = SERVICE_ENTRY,
      ) {
        const variantPort = await freePort();
        const origin = `http://127.0.0.1:${variantPort}`;
        // A variable set to undefined in `env` is removed (the service's own default applies).
        const merged = { ...serviceEnv(variantPort), ...env };
        for (const [k, v] of Object.entries(merged)) if (v === undefined) delete merged[k];
        const child = spawnNode(
          `service (${name})`,
          [...args, entry],
          merged,
          resolve(DATA, `bench-service-${name.replace(/[^a-z0-9]+/gi, '-')}.log`),
        );
        await waitForHttp(child, `${origin}/health/ready`);
        return { child, origin };
      },
      freshDatabase: (name: string) => createBenchDatabase(pg!, name),
      async setReply(reply: BenchReply) {
        const res = await fetch(`${providerOrigin}/_bench/reply`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(reply),
        });
        if (!res.ok) throw new Error(`provider /_bench/reply answered ${res.status}`);
      },
      async close() {
        // The service first, gracefully (it writes its CPU profile on exit), then the rest.
        await stopChild(service, 20_000);
        await close();
      },
    };
  } catch (err) {
    await close();
    throw err;
  }
}

export async function signup(origin: string, email: string): Promise<BenchUser> {
  const res = await fetch(`${origin}/api/auth/signup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password: PASSWORD, name: 'Bench' }),
  });
  const body = (await res.json()) as { user?: { id: string }; accessToken?: string };
  if (res.status !== 201 || !body.user || !body.accessToken) {
    throw new Error(`sign-up of ${email} answered ${res.status}: ${JSON.stringify(body)}`);
  }
  return { id: body.user.id, token: body.accessToken };
}
