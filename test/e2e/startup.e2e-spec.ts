import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { call } from '../faults/support/http';
import { freePort, spawnApp, waitForStatus } from '../support/spawn-app';

const ROOT = resolve(__dirname, '..', '..');

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
      const first = spawnApp(env);
      await waitForStatus(first, `${base}/health/ready`, 200);
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
          timeout: 60_000,
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
