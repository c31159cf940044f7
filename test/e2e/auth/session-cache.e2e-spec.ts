import { UsersService } from '../../../src/users/users.service';
import { newUser, type TestUser } from '../../support/factories';
import { createTestApp, type TestApp } from '../../support/test-app';
import { waitFor } from '../../support/wait';

/**
 * The session cache (src/users/session-cache.ts): session rows served from memory,
 * dropped when PostgreSQL notifies a change (trigger on `users`), at once for changes this
 * process makes, and not served at all while the listening connection is down.
 */
describe('session cache', () => {
  let t: TestApp;
  let admin: TestUser;

  beforeAll(async () => {
    // An hour: an entry never ages out during the file, so only a notification can drop it.
    t = await createTestApp({ SESSION_CACHE_TTL_MS: '3600000' });
    admin = await newUser(t, { role: 'ADMIN' });
  });
  afterAll(() => t.close());

  const sessionName = async (u: TestUser) =>
    (await t.http.get('/api/auth/session').set(u.auth).expect(200)).body.user?.name;

  /**
   * Polls `read` until it returns `want` (PostgreSQL's notification is asynchronous), bounded
   * by the test's timeout; resolves with the last value read.
   */
  async function eventually<T>(read: () => Promise<T>, want: T): Promise<T> {
    let got!: T;
    await waitFor(async () => (got = await read()) === want);
    return got;
  }

  const listenerPids = async (): Promise<number[]> =>
    (
      await t.db.query(
        `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'LISTEN session_changed%'`,
      )
    ).map((r: { pid: number }) => r.pid);

  it('serves a session from memory until PostgreSQL says the row changed', async () => {
    expect(await eventually(async () => (await listenerPids()).length, 1)).toBe(1);
    const u = await newUser(t, { name: 'Before' });
    expect(await sessionName(u)).toBe('Before');

    // A change that notifies nobody is not seen: the row is served from memory.
    await t.db.query('ALTER TABLE users DISABLE TRIGGER users_session_changed');
    try {
      await t.db.query(`UPDATE users SET name = 'Unannounced' WHERE id = $1`, [u.user.id]);
      expect(await sessionName(u)).toBe('Before');
    } finally {
      await t.db.query('ALTER TABLE users ENABLE TRIGGER users_session_changed');
    }
    // Another process's change (here plain SQL) is announced by the trigger and seen.
    await t.db.query(`UPDATE users SET name = 'Announced' WHERE id = $1`, [u.user.id]);
    expect(await eventually(() => sessionName(u), 'Announced')).toBe('Announced');
  });

  it('drops a cached session when another process changes the plan', async () => {
    const u = await newUser(t);
    const users = t.app.get(UsersService);
    const plan = async () => (await users.findSessionUser(u.user.id))?.plan;
    expect(await plan()).toBe('FREE');
    await t.db.query(`UPDATE users SET plan = 'PRO' WHERE id = $1`, [u.user.id]);
    expect(await eventually(plan, 'PRO')).toBe('PRO');
  });

  it("applies this process's own changes at once: profile, role, deletion", async () => {
    const u = await newUser(t, { name: 'Old name' });
    expect(await sessionName(u)).toBe('Old name');
    await t.http.put('/api/user/profile').set(u.auth).send({ name: 'New name' }).expect(200);
    expect(await sessionName(u)).toBe('New name');

    await t.http.get('/api/users').set(u.auth).expect(403);
    await t.http.put(`/api/users/${u.user.id}`).set(admin.auth).send({ role: 'ADMIN' }).expect(200);
    await t.http.get('/api/users').set(u.auth).expect(200);

    await t.http.delete(`/api/users/${u.user.id}`).set(admin.auth).expect(200);
    await t.http.get('/api/auth/session').set(u.auth).expect(200, {});
    await t.http.get('/api/chats').set(u.auth).expect(401);
  });

  it('serves nothing from memory while the listening connection is down, then listens again', async () => {
    const u = await newUser(t, { name: 'Cached' });
    expect(await sessionName(u)).toBe('Cached');
    const [pid] = await listenerPids();
    await t.db.query('ALTER TABLE users DISABLE TRIGGER users_session_changed');
    try {
      await t.db.query('SELECT pg_terminate_backend($1)', [pid]);
      await t.db.query(`UPDATE users SET name = 'Unannounced' WHERE id = $1`, [u.user.id]);
      // No notification was sent, yet the lost connection emptied the cache.
      expect(await eventually(() => sessionName(u), 'Unannounced')).toBe('Unannounced');
    } finally {
      await t.db.query('ALTER TABLE users ENABLE TRIGGER users_session_changed');
    }
    const again = await eventually(async () => (await listenerPids()).length, 1);
    expect(again).toBe(1);
    expect(await listenerPids()).not.toContain(pid);
  });
});
