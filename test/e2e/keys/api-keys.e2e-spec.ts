import { createHash } from 'node:crypto';
import { Clock } from '../../../src/common/clock/clock';
import { startProviders, type Providers } from '../../support/providers';
import { ledgerOf, newUser, type TestUser } from '../../support/factories';
import { createTestApp, type TestApp } from '../../support/test-app';
import { waitFor } from '../../support/wait';

/** A clock the test moves by hand (key expiry). */
class MovableClock extends Clock {
  offsetMs = 0;
  now(): Date {
    return new Date(Date.now() + this.offsetMs);
  }
}

/** Personal API keys, their auth, scopes, limits and ledger attribution. */
describe('API keys', () => {
  let t: TestApp;
  let p: Providers;
  const clock = new MovableClock();
  const ask = { modelId: 'gpt-4o', messages: [{ role: 'user', content: 'Tell me' }] };

  beforeAll(async () => {
    p = await startProviders();
    t = await createTestApp(p.env, { clock });
  });
  afterAll(async () => {
    await t.close();
    await p.stop();
  });
  beforeEach(() => {
    p.reset();
    clock.offsetMs = 0;
  });

  async function newKey(u: TestUser, body: object = {}) {
    const res = await t.http
      .post('/api/keys')
      .set(u.auth)
      .send({ name: 'script', ...body })
      .expect(201);
    return { ...res.body, auth: { Authorization: `Bearer ${res.body.key}` } };
  }

  it('creates a key shown once, stored only as its SHA-256, listed without the secret', async () => {
    const u = await newUser(t);
    const key = await newKey(u, { name: 'CI', dailyCreditLimit: 50 });
    expect(key.key).toMatch(/^sk-[0-9A-Za-z]{44}$/);
    expect(key.prefix).toBe(key.key.slice(0, 11));
    expect(key.scopes).toEqual(['ai', 'chats:read']);
    expect(key.dailyCreditLimit).toBe(50);

    const [row] = await t.db.query(`SELECT * FROM api_keys WHERE id = $1`, [key.id]);
    expect(row.keyHash.equals(createHash('sha256').update(key.key).digest())).toBe(true);
    expect(JSON.stringify(row)).not.toContain(key.key.slice(11));

    const list = (await t.http.get('/api/keys').set(u.auth).expect(200)).body.keys;
    expect(list).toHaveLength(1);
    expect(list[0]).toEqual(expect.objectContaining({ id: key.id, prefix: key.prefix }));
    expect(JSON.stringify(list)).not.toContain(key.key);
    expect(list[0].lastUsedAt).toBeNull();

    // Another user can neither see nor change it.
    const other = await newUser(t);
    expect((await t.http.get('/api/keys').set(other.auth).expect(200)).body.keys).toEqual([]);
    await t.http.patch(`/api/keys/${key.id}`).set(other.auth).send({ name: 'x' }).expect(404);
    await t.http.delete(`/api/keys/${key.id}`).set(other.auth).expect(404);
  });

  it('authenticates `Bearer sk-…` where its scope allows, and records lastUsedAt', async () => {
    const u = await newUser(t);
    const key = await newKey(u);
    const chats = await t.http.get('/api/chats').set(key.auth).expect(200);
    expect(chats.body.success).toBe(true);
    const lastUsedAt = async (): Promise<Date | null> =>
      (await t.db.query(`SELECT "lastUsedAt" FROM api_keys WHERE id = $1`, [key.id]))[0].lastUsedAt;
    // Written without holding up the request: wait for it (bounded by the test's timeout).
    expect(await waitFor(async () => (await lastUsedAt()) !== null)).toBe(true);
  });

  it('refuses keys on account, keys, two-factor, payments and admin routes (403 INSUFFICIENT_SCOPE)', async () => {
    const u = await newUser(t);
    const key = await newKey(u, { scopes: ['ai', 'chats:read', 'chats:write', 'credits:read'] });
    for (const [method, path] of [
      ['get', '/api/users/me'],
      ['post', '/api/keys'],
      ['get', '/api/keys'],
      ['post', '/api/auth/2fa/setup'],
      ['post', '/api/credits/purchase'],
      ['get', '/api/users'],
      ['post', '/api/teams'],
    ] as const) {
      const res = await t.http[method](path).set(key.auth).send({});
      expect([path, res.status, res.body.code]).toEqual([path, 403, 'INSUFFICIENT_SCOPE']);
    }
    // A public route answers as to no session: the key is not a session there.
    const session = await t.http.get('/api/auth/session').set(key.auth).expect(200);
    expect(session.body.user ?? null).toBeNull();
  });

  it('refuses a route outside the key scopes and accepts it with the scope', async () => {
    const u = await newUser(t);
    const readOnly = await newKey(u, { scopes: ['chats:read'] });
    const res = await t.http.post('/api/chats').set(readOnly.auth).send({ title: 'x' }).expect(403);
    expect(res.body).toEqual(
      expect.objectContaining({ code: 'INSUFFICIENT_SCOPE', requiredScope: 'chats:write' }),
    );
    await t.http.post('/api/ai/generate').set(readOnly.auth).send(ask).expect(403);
    const writer = await newKey(u, { scopes: ['chats:write'] });
    await t.http.post('/api/chats').set(writer.auth).send({ title: 'x' }).expect(201);
  });

  it('revokes at once, and refuses unknown and expired keys with 401 INVALID_API_KEY', async () => {
    const u = await newUser(t);
    const key = await newKey(u);
    await t.http.get('/api/chats').set(key.auth).expect(200);
    await t.http.delete(`/api/keys/${key.id}`).set(u.auth).expect(200);
    const gone = await t.http.get('/api/chats').set(key.auth).expect(401);
    expect(gone.body.code).toBe('INVALID_API_KEY');
    expect((await t.http.get('/api/keys').set(u.auth)).body.keys).toEqual([]);
    await t.http.delete(`/api/keys/${key.id}`).set(u.auth).expect(404);

    const forged = `sk-${'A'.repeat(44)}`;
    const unknown = await t.http.get('/api/chats').set({ Authorization: `Bearer ${forged}` });
    expect([unknown.status, unknown.body.code]).toEqual([401, 'INVALID_API_KEY']);

    // Same prefix, wrong secret: the hash comparison refuses it.
    const other = await newKey(u);
    const tampered =
      other.key.slice(0, 20) + (other.key[20] === 'a' ? 'b' : 'a') + other.key.slice(21);
    await t.http
      .get('/api/chats')
      .set({ Authorization: `Bearer ${tampered}` })
      .expect(401);

    const soon = new Date(Date.now() + 60_000).toISOString();
    const expiring = await newKey(u, { expiresAt: soon });
    await t.http.get('/api/chats').set(expiring.auth).expect(200);
    clock.offsetMs = 61_000;
    const expired = await t.http.get('/api/chats').set(expiring.auth).expect(401);
    expect(expired.body.code).toBe('INVALID_API_KEY');
  });

  it('validates input: past expiry, unknown scope, bad limit; at most 20 active keys', async () => {
    const u = await newUser(t);
    const past = new Date(Date.now() - 1000).toISOString();
    for (const body of [
      { name: 'x', expiresAt: past },
      { name: 'x', scopes: ['admin'] },
      { name: 'x', dailyCreditLimit: 0 },
      { name: '' },
      { name: 'x', key: 'sk-mine' },
    ]) {
      const res = await t.http.post('/api/keys').set(u.auth).send(body).expect(400);
      expect(res.body.code).toBe('VALIDATION_FAILED');
    }
    expect((await t.http.get('/api/keys').set(u.auth)).body.keys).toEqual([]);
    await Promise.all(
      Array.from({ length: 22 }, () => t.http.post('/api/keys').set(u.auth).send({ name: 'k' })),
    );
    expect((await t.http.get('/api/keys').set(u.auth)).body.keys).toHaveLength(20);
    const over = await t.http.post('/api/keys').set(u.auth).send({ name: 'k' }).expect(409);
    expect(over.body.code).toBe('LIMIT_REACHED');
  });

  it('renames and re-limits a key', async () => {
    const u = await newUser(t);
    const key = await newKey(u, { dailyCreditLimit: 10 });
    const res = await t.http
      .patch(`/api/keys/${key.id}`)
      .set(u.auth)
      .send({ name: 'laptop', dailyCreditLimit: null })
      .expect(200);
    expect(res.body).toEqual(expect.objectContaining({ name: 'laptop', dailyCreditLimit: null }));
  });

  it('records the key on the ledger: filter by keyId, usage grouped by key', async () => {
    const u = await newUser(t);
    const key = await newKey(u, { scopes: ['ai', 'credits:read'] });
    await t.http.post('/api/ai/generate').set(key.auth).send(ask).expect(200);
    await t.http.post('/api/ai/generate').set(u.auth).send(ask).expect(200);
    const all = (await t.http.get('/api/credits/transactions').set(key.auth).expect(200)).body.data;
    expect(all.filter((e: { type: string }) => e.type === 'CONSUMPTION')).toHaveLength(2);
    const viaKey = (
      await t.http.get(`/api/credits/transactions?keyId=${key.id}`).set(u.auth).expect(200)
    ).body.data;
    expect(viaKey).toHaveLength(1);
    expect(viaKey[0]).toEqual(expect.objectContaining({ type: 'CONSUMPTION', keyId: key.id }));
    const usage = (await t.http.get('/api/credits/usage?groupBy=key').set(u.auth).expect(200)).body;
    expect(usage.data).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ keyId: key.id, requests: 1 }),
        expect.objectContaining({ keyId: null, requests: 1 }),
      ]),
    );
  });

  it('limits requests per minute per key (429 RATE_LIMITED with Retry-After)', async () => {
    const limited = await createTestApp({ ...p.env, API_KEY_RPM: '3' });
    try {
      const u = await newUser(limited);
      const res = await limited.http.post('/api/keys').set(u.auth).send({ name: 'k' }).expect(201);
      const auth = { Authorization: `Bearer ${res.body.key}` };
      for (let i = 0; i < 3; i++) await limited.http.get('/api/chats').set(auth).expect(200);
      const over = await limited.http.get('/api/chats').set(auth).expect(429);
      expect(over.body.code).toBe('RATE_LIMITED');
      expect(Number(over.headers['retry-after'])).toBeGreaterThan(0);
      // Sessions are not counted against the key.
      await limited.http.get('/api/chats').set(u.auth).expect(200);
    } finally {
      await limited.close();
    }
  });
});

// Natural batching on (the default) and off (each statement alone): one app each, one after the other.
describe.each(['true', 'false'])(
  'API key limits under parallel requests (BATCH_STATEMENTS=%s)',
  (batch) => {
    let t: TestApp;
    let p: Providers;
    const ask = { modelId: 'gpt-4o', messages: [{ role: 'user', content: 'Tell me' }] };

    beforeAll(async () => {
      p = await startProviders();
      t = await createTestApp({ ...p.env, BATCH_STATEMENTS: batch });
    });
    afterAll(async () => {
      await t.close();
      await p.stop();
    });

    async function newKey(u: TestUser, body: object = {}) {
      const res = await t.http
        .post('/api/keys')
        .set(u.auth)
        .send({ name: 'script', ...body })
        .expect(201);
      return { ...res.body, auth: { Authorization: `Bearer ${res.body.key}` } };
    }

    it("admits exactly 3 of 20 parallel requests when the key's daily limit covers 3 worst-case holds", async () => {
      // Warm the app up (a fresh app's first requests are slow: replies could settle before
      // the last of the 20 is admitted), then count only the 20.
      const warm = await newUser(t);
      await t.http.post('/api/ai/generate').set(warm.auth).send(ask).expect(200);
      p.openai.requests.length = 0;
      // Hold for gpt-4o: ceil((2 estimated + 1000 max) * 0.00001 * 1000) = 11 credits.
      const u = await newUser(t, { credits: 1000 });
      const key = await newKey(u, { dailyCreditLimit: 33 });
      // Slow replies (3 s): no admitted request settles, returning credits, before all 20 are
      // decided, even on a loaded machine.
      p.openai.reply = { chunks: 2, chunkDelayMs: 1500 };
      const results = await Promise.all(
        Array.from({ length: 20 }, () => t.http.post('/api/ai/stream').set(key.auth).send(ask)),
      );
      const statuses = results.map((r) => r.status);
      expect(statuses.filter((s) => s === 200)).toHaveLength(3);
      expect(statuses.filter((s) => s === 429)).toHaveLength(17);
      const refused = results.find((r) => r.status === 429)!;
      expect(refused.body).toEqual(
        expect.objectContaining({ code: 'KEY_DAILY_LIMIT_REACHED', dailyCreditLimit: 33 }),
      );
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
      expect(p.openai.requests).toHaveLength(3);
      // The session is not bound by the key's limit.
      await t.http.post('/api/ai/generate').set(u.auth).send(ask).expect(200);
      const ledger = await ledgerOf(t, u.user.id);
      expect(ledger.credits).toBe(ledger.ledgerSum);
      expect(Number((await t.db.query('SELECT count(*) FROM credit_holds'))[0].count)).toBe(0);
    });
  },
);
