import { randomBytes } from 'node:crypto';
import { newUser, PASSWORD, type TestUser } from '../../support/factories';
import { createTestApp, type TestApp } from '../../support/test-app';

/**
 * The admin actions of the console's Users page: search by part of the email or name, a credit
 * adjustment with its reason (the ledger entry's description and the audit detail), and ending
 * every session of a user.
 */
describe('Users: admin search, adjustment reason, ending sessions', () => {
  let t: TestApp;
  let admin: TestUser;
  beforeAll(async () => {
    t = await createTestApp();
    admin = await newUser(t, { role: 'ADMIN' });
  });
  afterAll(() => t.close());

  const search = async (q: string, limit?: number, cursor?: string) =>
    (
      await t.http
        .get('/api/users')
        .query({ q, ...(limit ? { limit } : {}), ...(cursor ? { cursor } : {}) })
        .set(admin.auth)
        .expect(200)
    ).body as { success: true; data: { email: string }[]; nextCursor: string | null };

  it('finds users by part of the email or name, any case; wildcards match themselves', async () => {
    const tag = randomBytes(4).toString('hex');
    const a = await newUser(t, { email: `ada-${tag}@example.com`, name: 'Ada Lovelace' });
    const b = await newUser(t, { email: `bob-${tag}@example.com`, name: `Grace_${tag}` });
    await newUser(t, { email: `carl-${tag}x@example.com`, name: 'Carl' });

    expect((await search(`ADA-${tag}`)).data.map((u) => u.email)).toEqual([a.user.email]);
    expect((await search(`grace_${tag}`)).data.map((u) => u.email)).toEqual([b.user.email]);
    // `_` and `%` are literal: `%` matches no name or address here.
    expect((await search(`%${tag}`)).data).toEqual([]);
    // The search pages with the cursor like the list: newest first, each user once.
    const first = await search(tag, 2);
    expect(first.data.map((u) => u.email)).toEqual([`carl-${tag}x@example.com`, b.user.email]);
    const second = await search(tag, 2, first.nextCursor!);
    expect(second).toEqual({
      success: true,
      data: [expect.objectContaining({ email: a.user.email })],
      nextCursor: null,
    });
  });

  it('refuses a search longer than 100 characters with 400', async () => {
    await t.http
      .get('/api/users')
      .query({ q: 'x'.repeat(101) })
      .set(admin.auth)
      .expect(400);
  });

  it('describes the ADJUSTMENT entry and the audit event by the reason given', async () => {
    const u = await newUser(t);
    const before = u.user.credits;
    const res = await t.http
      .put(`/api/users/${u.user.id}`)
      .set(admin.auth)
      .send({ credits: before + 250, reason: '  Support ticket 4711 ' })
      .expect(200);
    expect(res.body.data.credits).toBe(before + 250);
    const entries = await t.db.query(
      `SELECT type, amount, description FROM credit_transactions WHERE "userId" = $1 AND type = 'ADJUSTMENT'`,
      [u.user.id],
    );
    expect(entries).toEqual([
      { type: 'ADJUSTMENT', amount: 250, description: 'Support ticket 4711' },
    ]);
    const [event] = await t.db.query(
      `SELECT details FROM audit_events WHERE action = 'user.credits.adjust' AND "targetId" = $1`,
      [u.user.id],
    );
    expect(event.details).toEqual({
      from: before,
      to: before + 250,
      reason: 'Support ticket 4711',
    });
    await t.http
      .put(`/api/users/${u.user.id}`)
      .set(admin.auth)
      .send({ credits: 1, reason: 'x'.repeat(201) })
      .expect(400);
  });

  it('ends every session of a user: their tokens get 401 at once; admin only; 404 unknown', async () => {
    const u = await newUser(t);
    const login = await t.http
      .post('/api/auth/login')
      .send({ email: u.user.email, password: PASSWORD })
      .expect(200);
    const tokens = [u.token, login.body.accessToken as string];
    for (const token of tokens)
      await t.http.get('/api/protected').set('Authorization', `Bearer ${token}`).expect(200);

    await t.http.delete(`/api/users/${admin.user.id}/sessions`).set(u.auth).expect(403);
    const res = await t.http.delete(`/api/users/${u.user.id}/sessions`).set(admin.auth).expect(200);
    expect(res.body).toEqual({ success: true, data: { ended: 2 } });
    for (const token of tokens)
      await t.http.get('/api/protected').set('Authorization', `Bearer ${token}`).expect(401);
    // The admin's own session is untouched.
    await t.http.get('/api/protected').set(admin.auth).expect(200);

    const missing = await t.http
      .delete('/api/users/00000000-0000-4000-8000-000000000000/sessions')
      .set(admin.auth)
      .expect(404);
    expect(missing.body).toMatchObject({ success: false, code: 'USER_NOT_FOUND' });
  });
});
