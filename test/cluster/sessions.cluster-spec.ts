import type { SpawnedApp } from '../support/spawn-app';
import { startTwoInstances, stopInstance } from './instances';

/**
 * Sessions that end, across two instances (`npm run test:cluster`): a session ended on one
 * instance (sign-out, or ended from the sessions list) is refused by the other on its very next
 * request, although that instance had the session in memory. No waiting in between: the ending
 * call answers only after the revocation committed and PostgreSQL's notification went out.
 */
const RUN = `${process.pid}-${Date.now()}`;
const PASSWORD = 'cluster password 1';
const ROUNDS = 5;

const sidOf = (token: string): string =>
  JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString()).sid;

describe('sessions across two instances', () => {
  const apps: SpawnedApp[] = [];
  const bases: string[] = [];
  let email: string;

  const call = (i: number, method: string, path: string, token?: string, body?: object) =>
    fetch(`${bases[i]}${path}`, {
      method,
      redirect: 'manual',
      headers: {
        'content-type': 'application/json',
        ...(token ? { authorization: `Bearer ${token}` } : {}),
      },
      body: body ? JSON.stringify(body) : undefined,
    });
  const status = async (i: number, token: string) =>
    (await call(i, 'GET', '/api/protected', token)).status;
  const signIn = async (i: number): Promise<string> => {
    const res = await call(i, 'POST', '/api/auth/login', undefined, { email, password: PASSWORD });
    expect(res.status).toBe(200);
    return ((await res.json()) as { accessToken: string }).accessToken;
  };
  /** Both instances serve `token` (and so hold its session in memory). */
  const warm = async (token: string) => {
    for (const i of [0, 1, 0, 1]) expect(await status(i, token)).toBe(200);
  };

  beforeAll(async () => {
    await startTwoInstances(
      { apps, bases },
      {
        DATABASE_URL: process.env.CLUSTER_PG_URL!,
        DB_POOL_SIZE: '10',
        AUTH_SECRET: 'cluster-test-secret-0123456789-0123456789',
        AUTH_RATE_LIMIT_PER_MINUTE: '1000',
      },
    );
    email = `sessions-${RUN}@example.com`;
    const res = await call(0, 'POST', '/api/auth/signup', undefined, { email, password: PASSWORD });
    expect(res.status).toBe(201);
  }, 180_000);

  afterAll(async () => {
    await Promise.all(apps.map(stopInstance));
  }, 60_000);

  it('signed out on instance A: the token is refused on instance B at once', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const token = await signIn(round % 2);
      await warm(token);
      const out = await call(0, 'POST', '/api/auth/signout', token);
      expect(out.status).toBe(302);
      expect({ round, onB: await status(1, token) }).toEqual({ round, onB: 401 });
      expect(await status(0, token)).toBe(401);
    }
  });

  it('a session ended from the list on A is refused on B at once; so are all others', async () => {
    const keeper = await signIn(0);
    for (let round = 0; round < ROUNDS; round++) {
      const other = await signIn(1);
      await warm(other);
      const del = await call(0, 'DELETE', `/api/auth/sessions/${sidOf(other)}`, keeper);
      expect(del.status).toBe(200);
      expect({ round, onB: await status(1, other) }).toEqual({ round, onB: 401 });
    }
    const others = [await signIn(0), await signIn(1)];
    for (const token of others) await warm(token);
    const all = await call(0, 'DELETE', '/api/auth/sessions', keeper);
    expect(all.status).toBe(200);
    expect(((await all.json()) as { ended: number }).ended).toBeGreaterThanOrEqual(2);
    for (const token of others) expect(await status(1, token)).toBe(401);
    expect(await status(1, keeper)).toBe(200);
    // B lists what A ended.
    const listed = await call(1, 'GET', '/api/auth/sessions', keeper);
    const { sessions } = (await listed.json()) as {
      sessions: { id: string; active: boolean; current: boolean }[];
    };
    expect(sessions.filter((s) => s.active).map((s) => s.id)).toEqual([sidOf(keeper)]);
  });
});
