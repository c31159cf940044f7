import { randomUUID } from 'node:crypto';
import { verifyUser } from '../../support/accounts';
import { ledgerOf, newChat, newUser, type TestUser } from '../../support/factories';
import { createTestApp, type TestApp } from '../../support/test-app';

const forbidden = { success: false, error: expect.any(String), code: 'FORBIDDEN' };
const unauthorized = { success: false, error: expect.any(String), code: 'UNAUTHORIZED' };
const invalid = { success: false, error: expect.any(String), code: 'VALIDATION_FAILED' };
const notFound = { success: false, error: expect.any(String), code: 'USER_NOT_FOUND' };

/** Every key of every object in a JSON body, at any depth. */
function keysOf(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(keysOf);
  if (value && typeof value === 'object') {
    return Object.entries(value).flatMap(([k, v]) => [k, ...keysOf(v)]);
  }
  return [];
}

describe('Users: admin CRUD, envelope B, profile and ledger', () => {
  let t: TestApp;
  let admin: TestUser;
  let user: TestUser;

  beforeAll(async () => {
    t = await createTestApp();
    admin = await newUser(t, { role: 'ADMIN' });
    user = await newUser(t);
  });
  afterAll(() => t.close());

  const row = async (id: string) =>
    (await t.db.query('SELECT * FROM users WHERE id = $1', [id]))[0] as Record<string, unknown>;
  const count = async (sql: string, ...params: unknown[]): Promise<number> =>
    (await t.db.query(`SELECT count(*)::int AS n FROM ${sql}`, params))[0].n;
  const put = (id: string, body: object) =>
    t.http.put(`/api/users/${id}`).set(admin.auth).send(body);

  it('refuses every admin route to a USER with 403 FORBIDDEN and to no session with 401', async () => {
    const id = user.user.id;
    const calls = [
      () => t.http.get('/api/users'),
      () => t.http.post('/api/users').send({ email: 'x@example.com', name: 'X' }),
      () => t.http.put(`/api/users/${id}`).send({ name: 'Hacked' }),
      () => t.http.delete(`/api/users/${id}`),
    ];
    for (const call of calls) {
      expect((await call().set(user.auth).expect(403)).body).toEqual(forbidden);
      expect((await call().expect(401)).body).toEqual(unauthorized);
    }
    expect((await t.http.get(`/api/users/${id}`).expect(401)).body).toEqual(unauthorized);
    expect((await row(id)).name).toBe('Test User');
    expect(await count(`users WHERE email = 'x@example.com'`)).toBe(0);
  });

  it('lets a user read themself but answers 404 for anyone else, without admin fields', async () => {
    const res = await t.http.get(`/api/users/${user.user.id}`).set(user.auth).expect(200);
    expect(res.body).toEqual({
      success: true,
      data: expect.objectContaining({ id: user.user.id, email: user.user.email, role: 'USER' }),
    });
    expect(res.body.data).not.toHaveProperty('password');
    expect(res.body.data).not.toHaveProperty('paymentCustomerId');
    const other = await t.http.get(`/api/users/${admin.user.id}`).set(user.auth).expect(404);
    expect(other.body).toEqual(notFound);
    const absent = await t.http.get(`/api/users/${randomUUID()}`).set(user.auth).expect(404);
    expect(absent.body).toEqual(other.body);
  });

  it('shows paymentCustomerId to admins only and never a password', async () => {
    const u = await newUser(t);
    await t.db.query(`UPDATE users SET "paymentCustomerId" = 'cus_123' WHERE id = $1`, [u.user.id]);
    expect((await row(u.user.id)).password).toEqual(expect.any(String));
    const asAdmin = await t.http.get(`/api/users/${u.user.id}`).set(admin.auth).expect(200);
    expect(asAdmin.body.data.paymentCustomerId).toBe('cus_123');
    const self = await t.http.get(`/api/users/${u.user.id}`).set(u.auth).expect(200);
    expect(self.body.data).not.toHaveProperty('paymentCustomerId');
    const list = await t.http.get('/api/users?limit=100').set(admin.auth).expect(200);
    const profile = await t.http.put('/api/user/profile').set(u.auth).send({ name: 'P' });
    expect(profile.status).toBe(200);
    const updated = await put(u.user.id, { plan: 'PRO' }).expect(200);
    for (const body of [asAdmin.body, self.body, list.body, profile.body, updated.body]) {
      expect(keysOf(body)).not.toContain('password');
    }
    expect(keysOf(profile.body)).not.toContain('paymentCustomerId');
  });

  it('answers 404 {success:false} for an absent id on get, update and delete', async () => {
    const id = randomUUID();
    for (const req of [
      t.http.get(`/api/users/${id}`).set(admin.auth),
      put(id, { name: 'N' }),
      t.http.delete(`/api/users/${id}`).set(admin.auth),
    ]) {
      expect((await req.expect(404)).body).toEqual(notFound);
    }
  });

  it('creates a user: 201, normalized email, unverified; the sign-up bonus waits for verification', async () => {
    const res = await t.http
      .post('/api/users')
      .set(admin.auth)
      .send({ email: '  Ada.Lovelace@Example.COM ', name: 'Ada', plan: 'BASIC' })
      .expect(201);
    expect(res.body).toEqual({
      success: true,
      data: expect.objectContaining({
        email: 'ada.lovelace@example.com',
        name: 'Ada',
        role: 'USER',
        plan: 'BASIC',
        credits: 0,
        emailVerified: false,
        paymentCustomerId: null,
      }),
    });
    expect(res.body.data).not.toHaveProperty('password');
    const id = res.body.data.id;
    expect(await ledgerOf(t, id)).toEqual({ credits: 0, ledgerSum: 0, entries: 0 });
    expect(await verifyUser(t, id)).toBe(true);
    expect(await verifyUser(t, id)).toBe(false);
    expect(await ledgerOf(t, id)).toEqual({ credits: 100, ledgerSum: 100, entries: 1 });
    const entries = await t.db.query(
      'SELECT amount, type FROM credit_transactions WHERE "userId" = $1',
      [id],
    );
    expect(entries).toEqual([{ amount: 100, type: 'BONUS' }]);

    const dup = await t.http
      .post('/api/users')
      .set(admin.auth)
      .send({ email: 'ADA.LOVELACE@example.com', name: 'Ada 2' })
      .expect(409);
    expect(dup.body).toEqual({ success: false, error: expect.any(String), code: 'EMAIL_TAKEN' });
    expect(await count(`users WHERE lower(email) = 'ada.lovelace@example.com'`)).toBe(1);
  });

  it('refuses invalid creations with 400 VALIDATION_FAILED and creates nothing', async () => {
    const before = await count('users');
    const bodies = [
      { name: 'No Email' },
      { email: 'no-name@example.com' },
      { email: 'blank@example.com', name: '   ' },
      { email: 'not-an-email', name: 'X' },
      { email: 'js@example.com', name: 'X', avatar: 'javascript:alert(1)' },
      { email: 'pw@example.com', name: 'X', password: 'secret123' },
      { email: 'role@example.com', name: 'X', role: 'ROOT' },
    ];
    for (const body of bodies) {
      const res = await t.http.post('/api/users').set(admin.auth).send(body).expect(400);
      expect(res.body).toEqual(invalid);
    }
    expect(await count('users')).toBe(before);
  });

  it('updates allowed fields and records a credits change as one ADJUSTMENT of the difference', async () => {
    const u = await newUser(t);
    const body = { name: 'Renamed', avatar: '/uploads/a.png', plan: 'PRO', credits: 250 };
    const res = await put(u.user.id, body).expect(200);
    expect(res.body).toEqual({
      success: true,
      data: expect.objectContaining(body),
    });
    expect(await ledgerOf(t, u.user.id)).toEqual({ credits: 250, ledgerSum: 250, entries: 2 });

    await put(u.user.id, { credits: 40 }).expect(200);
    const adjustments = await t.db.query(
      `SELECT amount FROM credit_transactions WHERE "userId" = $1 AND type = 'ADJUSTMENT' ORDER BY "createdAt"`,
      [u.user.id],
    );
    expect(adjustments).toEqual([{ amount: 150 }, { amount: -210 }]);
    expect(await ledgerOf(t, u.user.id)).toEqual({ credits: 40, ledgerSum: 40, entries: 3 });

    // Same balance again: no entry; only the name changes.
    await put(u.user.id, { credits: 40, name: 'Again' }).expect(200);
    expect(await ledgerOf(t, u.user.id)).toEqual({ credits: 40, ledgerSum: 40, entries: 3 });
    expect((await row(u.user.id)).name).toBe('Again');
  });

  it('refuses unknown or invalid update fields with 400 and changes nothing', async () => {
    const u = await newUser(t);
    const before = await row(u.user.id);
    const bodies = [
      { name: 'X', email: 'new@example.com' },
      { name: 'X', password: 'new-password' },
      { name: 'X', paymentCustomerId: 'cus_evil' },
      { name: 'X', id: randomUUID() },
      { credits: -1 },
      { credits: 1.5 },
      { role: 'ROOT' },
      { plan: 'GOLD' },
      { avatar: 'javascript:alert(1)' },
    ];
    for (const body of bodies) {
      expect((await put(u.user.id, body).expect(400)).body).toEqual(invalid);
    }
    expect(await row(u.user.id)).toEqual(before);
    expect(await ledgerOf(t, u.user.id)).toEqual({ credits: 100, ledgerSum: 100, entries: 1 });
  });

  it('applies a role change from the next request on', async () => {
    const u = await newUser(t);
    await t.http.get('/api/users').set(u.auth).expect(403);
    expect((await put(u.user.id, { role: 'ADMIN' }).expect(200)).body.data.role).toBe('ADMIN');
    await t.http.get('/api/users').set(u.auth).expect(200);
  });

  it('deletes a user with their chats, messages and ledger: 200 {success:true}', async () => {
    const u = await newUser(t);
    const chat = await newChat(t, u, { messages: ['hello', 'hi there'] });
    expect(await count('messages WHERE "chatId" = $1', chat.id)).toBe(2);
    const res = await t.http.delete(`/api/users/${u.user.id}`).set(admin.auth).expect(200);
    expect(res.body).toEqual({ success: true });
    expect(await count('users WHERE id = $1', u.user.id)).toBe(0);
    expect(await count('chats WHERE id = $1', chat.id)).toBe(0);
    expect(await count('messages WHERE "chatId" = $1', chat.id)).toBe(0);
    expect(await count('credit_transactions WHERE "userId" = $1', u.user.id)).toBe(0);
    await t.http.get(`/api/users/${u.user.id}`).set(u.auth).expect(401);
    await t.http.delete(`/api/users/${u.user.id}`).set(admin.auth).expect(404);
  });

  it('paginates the list: default 50, clamped to 100, cursor walks every user once', async () => {
    await t.db.query(
      `INSERT INTO users (email, name) SELECT 'bulk-' || g || '@example.com', 'Bulk' FROM generate_series(1, 120) g`,
    );
    const total = await count('users');
    const first = await t.http.get('/api/users').set(admin.auth).expect(200);
    expect(first.body).toEqual({
      success: true,
      data: expect.any(Array),
      nextCursor: expect.any(String),
    });
    expect(first.body.data).toHaveLength(50);
    const clamped = await t.http.get('/api/users?limit=500').set(admin.auth).expect(200);
    expect(clamped.body.data).toHaveLength(100);

    const seen: string[] = [];
    const times: string[] = [];
    let cursor: string | null = null;
    do {
      const query: Record<string, string | number> = cursor ? { limit: 40, cursor } : { limit: 40 };
      const page = await t.http.get('/api/users').query(query).set(admin.auth).expect(200);
      expect(page.body.data.length).toBeLessThanOrEqual(40);
      seen.push(...page.body.data.map((x: { id: string }) => x.id));
      times.push(...page.body.data.map((x: { createdAt: string }) => x.createdAt));
      cursor = page.body.nextCursor;
    } while (cursor);
    expect(seen).toHaveLength(total);
    expect(new Set(seen).size).toBe(total);
    expect(times).toEqual([...times].sort().reverse()); // newest first

    for (const q of ['limit=0', 'limit=abc', 'cursor=garbage']) {
      expect((await t.http.get(`/api/users?${q}`).set(admin.auth).expect(400)).body).toEqual(
        invalid,
      );
    }
  });

  describe('PUT /api/user/profile', () => {
    it('updates the session user only and answers {user}', async () => {
      const u = await newUser(t);
      const res = await t.http
        .put('/api/user/profile')
        .set(u.auth)
        .send({ name: '  Grace  ', avatar: 'https://example.com/g.png' })
        .expect(200);
      expect(res.body).toEqual({
        user: expect.objectContaining({
          id: u.user.id,
          name: 'Grace',
          avatar: 'https://example.com/g.png',
        }),
      });
      expect(res.body).not.toHaveProperty('success');
      expect(res.body.user).not.toHaveProperty('password');
      expect((await row(u.user.id)).name).toBe('Grace');
      expect((await row(user.user.id)).name).toBe('Test User');
    });

    it('refuses no session with 401 {error}, and role, credits, other fields with 400', async () => {
      const anon = await t.http.put('/api/user/profile').send({ name: 'X' }).expect(401);
      expect(anon.body).toEqual({ error: expect.any(String), code: 'UNAUTHORIZED' });
      const u = await newUser(t);
      const before = await row(u.user.id);
      const bodies = [
        { role: 'ADMIN' },
        { name: 'X', credits: 1_000_000 },
        { email: 'mine@example.com' },
        { password: 'x' },
        { paymentCustomerId: 'cus_x' },
        { plan: 'PRO' },
        { avatar: 'javascript:alert(1)' },
        { avatar: 'ftp://example.com/a.png' },
        { name: '' },
      ];
      for (const body of bodies) {
        const res = await t.http.put('/api/user/profile').set(u.auth).send(body).expect(400);
        expect(res.body).toEqual({ error: expect.any(String), code: 'VALIDATION_FAILED' });
      }
      expect(await row(u.user.id)).toEqual(before);
      expect(await ledgerOf(t, u.user.id)).toEqual({ credits: 100, ledgerSum: 100, entries: 1 });
      await t.http.get('/api/users').set(u.auth).expect(403);
    });
  });

  it('keeps credits equal to the ledger sum for every user', async () => {
    const rows = await t.db.query(
      `SELECT u.id FROM users u LEFT JOIN credit_transactions ct ON ct."userId" = u.id
       GROUP BY u.id HAVING u.credits <> COALESCE(SUM(ct.amount), 0)`,
    );
    expect(rows).toEqual([]);
  });
});

describe('Users: SIGNUP_CREDITS and ADMIN_EMAILS configuration', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({
      SIGNUP_CREDITS: '7',
      ADMIN_EMAILS: 'Boss@Example.com, other@example.com',
    });
  });
  afterAll(() => t.close());

  it('grants SIGNUP_CREDITS as one BONUS entry and makes ADMIN_EMAILS admins at verification', async () => {
    const admin = await newUser(t, { role: 'ADMIN' });
    const res = await t.http
      .post('/api/users')
      .set(admin.auth)
      .send({ email: ' BOSS@example.com', name: 'Boss', role: 'USER' })
      .expect(201);
    expect(res.body.data).toEqual(
      expect.objectContaining({ email: 'boss@example.com', role: 'USER', credits: 0 }),
    );
    await verifyUser(t, res.body.data.id);
    const verified = await t.http.get(`/api/users/${res.body.data.id}`).set(admin.auth).expect(200);
    expect(verified.body.data).toEqual(
      expect.objectContaining({ role: 'ADMIN', credits: 7, emailVerified: true }),
    );
    expect(await ledgerOf(t, res.body.data.id)).toEqual({ credits: 7, ledgerSum: 7, entries: 1 });

    const plain = await newUser(t);
    expect(plain.user.role).toBe('USER');
    expect(await ledgerOf(t, plain.user.id)).toEqual({ credits: 7, ledgerSum: 7, entries: 1 });
    const entries = await t.db.query(
      'SELECT amount, type FROM credit_transactions WHERE "userId" = $1',
      [plain.user.id],
    );
    expect(entries).toEqual([{ amount: 7, type: 'BONUS' }]);
  });
});
