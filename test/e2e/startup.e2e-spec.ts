import { existsSync, readFileSync, rmSync } from 'node:fs';
import { resolve } from 'node:path';
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
});
