import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { call } from '../../faults/support/http';
import { BOOT_MS, freePort, spawnApp, waitForStatus } from '../../support/spawn-app';
import { waitFor } from '../../support/wait';

const ROOT = resolve(__dirname, '..', '..', '..');

// Each test spawns the service up to three times: its limit is three boots' allowance.
jest.setTimeout(3 * BOOT_MS);

describe('start-up', () => {
  it('refuses to start with an invalid variable and names it', async () => {
    const app = spawnApp({ PORT: 'not-a-port', DATABASE_URL: undefined });
    expect(await app.exited).toBe(1);
    expect(app.output()).toMatch(/PORT/);
  });

  it('refuses to start in production without AUTH_SECRET and DATABASE_URL', async () => {
    const app = spawnApp({
      NODE_ENV: 'production',
      AUTH_SECRET: undefined,
      DATABASE_URL: undefined,
    });
    expect(await app.exited).toBe(1);
    expect(app.output()).toMatch(/AUTH_SECRET/);
    expect(app.output()).toMatch(/DATABASE_URL/);
  });

  describe('with DATABASE_URL unset (embedded PostgreSQL)', () => {
    const dir = `.data/pg-startup-${process.pid}`;
    let env: Record<string, string | undefined>;
    let base: string;

    beforeAll(async () => {
      const port = await freePort();
      env = {
        DATABASE_URL: undefined,
        AUTH_SECRET: 'startup-test-secret-0123456789-0123456789',
        PORT: String(port),
        EMBEDDED_PG_DIR: dir,
        EMBEDDED_PG_PORT: String(await freePort()),
      };
      base = `http://127.0.0.1:${port}`;
    });

    afterAll(() => {
      const pidFile = resolve(ROOT, dir, 'postmaster.pid');
      if (existsSync(pidFile)) {
        try {
          process.kill(Number(readFileSync(pidFile, 'utf8').split('\n')[0]), 'SIGTERM');
        } catch {
          // already gone
        }
      }
      rmSync(resolve(ROOT, dir), { recursive: true, force: true });
    });

    it('starts its own PostgreSQL, keeps data across restarts, and explains a stale server', async () => {
      // At the default level (info): Nest's own route and module lines are debug, so the log is
      // one line per concern, the ready line last.
      const first = spawnApp({ ...env, LOG_LEVEL: undefined });
      await waitForStatus(first, `${base}/health/ready`, 200);
      // The ready line is written just after the server listens: it may reach us after the answer.
      const printed = () => /^API listening on port/m.test(first.output());
      expect(await waitFor(() => printed() || first.child.exitCode !== null)).toBe(true);
      const boot = first.output().split('\n');
      const ready = boot.findIndex((l) => l.startsWith('API listening on port'));
      expect(ready).toBeGreaterThan(0);
      expect(first.output()).not.toMatch(/Mapped \{|dependencies initialized/);
      expect(boot.slice(0, ready).join('\n')).toMatch(
        /Embedded PostgreSQL[\s\S]*"Migrations: [\s\S]*"Queue: [\s\S]*"Mail: [\s\S]*"Upstreams: /,
      );
      expect(ready).toBeLessThan(15);
      const signup = await call(base, 'POST', '/api/auth/signup', {
        body: { email: 'persist@example.com', password: 'password123' },
      });
      expect(signup.status).toBe(201);
      first.child.kill('SIGTERM');
      expect(await first.exited).toBe(0);

      // Restart: the account is still there.
      const second = spawnApp(env);
      await waitForStatus(second, `${base}/health/ready`, 200);
      const login = await call(base, 'POST', '/api/auth/login', {
        body: { email: 'persist@example.com', password: 'password123' },
      });
      expect(login.status).toBe(200);

      // SIGKILL leaves an orphaned postgres holding the data directory.
      second.child.kill('SIGKILL');
      await second.exited;
      const third = spawnApp(env);
      expect(await third.exited).toBe(1);
      expect(third.output()).toMatch(/held by a running server \(pid \d+/);
      expect(third.output()).toMatch(/kill \d+/);
    });
  });

  describe('with WEB_CONCURRENCY=2 (a primary and two workers)', () => {
    const dir = `.data/pg-workers-${process.pid}`;
    afterAll(() => rmSync(resolve(ROOT, dir), { recursive: true, force: true }));

    /** Live processes whose parent is `pid` and whose command line runs src/main.ts or main.js. */
    const workersOf = (pid: number): number[] =>
      readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8')
        .trim()
        .split(/\s+/)
        .filter(Boolean)
        .map(Number)
        .filter((c) => {
          try {
            return /src\/main\.[jt]s/.test(readFileSync(`/proc/${c}/cmdline`, 'utf8'));
          } catch {
            return false;
          }
        });

    it('prints one ready line, serves from both workers with one database, and drains on SIGTERM', async () => {
      const port = await freePort();
      const base = `http://127.0.0.1:${port}`;
      const app = spawnApp({
        WEB_CONCURRENCY: '2',
        DATABASE_URL: undefined,
        AUTH_SECRET: undefined,
        PORT: String(port),
        EMBEDDED_PG_DIR: dir,
        EMBEDDED_PG_PORT: String(await freePort()),
      });
      // The first worker answers before the second is up; the ready line comes once both are.
      const listening = () => /API listening/.test(app.output()) || app.child.exitCode !== null;
      expect(await waitFor(listening, Infinity, 100)).toBe(true);
      await waitForStatus(app, `${base}/health/ready`, 200);
      const workers = workersOf(app.child.pid!);
      expect(workers).toHaveLength(2);
      expect(app.output().match(/API listening/g)).toHaveLength(1);
      // With APP_BASE_URL unset, the addresses printed are on the port actually served.
      expect(app.output()).toContain(
        `API listening on port ${port} (http://localhost:${port}) with 2 workers`,
      );
      expect(app.output()).toContain(`docs at http://localhost:${port}/api/docs`);

      // A session made on one worker is honoured by the other: round-robin spreads these
      // requests over both, and all of them see the same user in the same database.
      const signup = await call(base, 'POST', '/api/auth/signup', {
        body: { email: 'workers@example.com', password: 'password123' },
      });
      expect(signup.status).toBe(201);
      const headers = { authorization: `Bearer ${signup.json.accessToken}` };
      const answers = await Promise.all(
        Array.from({ length: 8 }, () => call(base, 'GET', '/api/auth/session', { headers })),
      );
      expect(answers.map((a) => a.status)).toEqual(Array(8).fill(200));

      app.child.kill('SIGTERM');
      expect(await app.exited).toBe(0);
      expect(existsSync(resolve(ROOT, dir, 'postmaster.pid'))).toBe(false);
      for (const pid of workers) expect(existsSync(`/proc/${pid}`)).toBe(false);
    });
  });

  describe('as root, in a folder the postgres OS user cannot enter', () => {
    const root = process.getuid?.() === 0;
    let closed: string;
    beforeAll(() => {
      closed = mkdtempSync(join(tmpdir(), 'closed-')); // 0700, like a checkout under /root
    });
    afterAll(() => rmSync(closed, { recursive: true, force: true }));

    it('npm start stops with one sentence naming the folder and the fixes', async () => {
      const app = spawnApp({
        DATABASE_URL: undefined,
        PORT: String(await freePort()),
        EMBEDDED_PG_DIR: join(closed, 'pg'),
        EMBEDDED_PG_PORT: String(await freePort()),
        AUTH_SECRET: 'startup-test-secret-0123456789-0123456789',
      });
      const code = await app.exited;
      if (!root) {
        // PostgreSQL runs as this user, who owns the folder: nothing to refuse.
        expect(app.output()).not.toMatch(/cannot enter/);
        return;
      }
      expect(code).toBe(1);
      const lines = app.output().trim().split('\n');
      expect(lines).toEqual([expect.stringContaining(`cannot enter ${closed},`)]);
      expect(lines[0]).toMatch(/DATABASE_URL.*EMBEDDED_PG_DIR.*move the checkout/);
    });

    it('npm test stops with the same sentence (jest global setup)', async () => {
      const port = String(await freePort());
      const run = spawnSync(
        process.execPath,
        ['node_modules/jest/bin/jest.js', '--selectProjects', 'e2e', 'test/e2e/i18n.e2e-spec.ts'],
        {
          cwd: ROOT,
          env: {
            ...process.env,
            DATABASE_URL: '',
            EMBEDDED_PG_TEST_DIR: join(closed, 'pg-test'),
            EMBEDDED_PG_TEST_PORT: port,
          },
          encoding: 'utf8',
          timeout: BOOT_MS,
        },
      );
      if (!root) return expect(run.stderr + run.stdout).not.toMatch(/cannot enter/);
      expect(run.status).toBe(1);
      expect(run.stderr).toContain(`cannot enter ${closed},`);
      expect(run.stderr).toMatch(/set EMBEDDED_PG_TEST_DIR/);
      expect(run.stderr).not.toMatch(/EACCES|at .*\.ts:\d+/);
    });
  });
});
