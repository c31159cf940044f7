import { createHash } from 'node:crypto';
import { duplicateReferences, unbalanced } from '../../faults/support/ledger';
import { signUpReferred } from '../../support/accounts';
import { newUser, type TestUser } from '../../support/factories';
import { createTestApp, type TestApp } from '../../support/test-app';
import { batchOf, redeem, redemptionsOf } from './redemption.helpers';

describe('Batches of redemption codes: made, counted, exported once, disabled; bad input refused', () => {
  let t: TestApp;
  let admin: TestUser;
  const batches = '/api/admin/redemption-batches';

  /** Every row a refused request must leave as it was. */
  const fingerprint = async () =>
    (
      await t.db.query(`SELECT
        (SELECT count(*) FROM redemption_batches)::int AS batches,
        (SELECT count(*) FROM redemption_codes)::int AS codes,
        (SELECT COALESCE(sum(uses), 0) FROM redemption_codes)::int AS uses,
        (SELECT count(*) FROM credit_transactions)::int AS entries,
        (SELECT COALESCE(sum(credits), 0) FROM users)::int AS credits,
        (SELECT count(*) FROM audit_events)::int AS audited`)
    )[0];

  beforeAll(async () => {
    t = await createTestApp({ TRUST_PROXY: 'true' });
    admin = await newUser(t, { role: 'ADMIN' });
  });
  afterAll(() => t.close());

  it('makes a batch with the defaults, lists it with its counts, and never shows its codes', async () => {
    const res = await t.http
      .post(batches)
      .set(admin.auth)
      .send({ name: 'Launch', credits: 25, quantity: 3 })
      .expect(201);
    expect(res.body).toMatchObject({
      name: 'Launch',
      credits: 25,
      quantity: 3,
      usesPerCode: 1,
      onePerUser: true,
      status: 'active',
      expiresAt: null,
      exportedAt: null,
      counts: { created: 3, redeemed: 0, redemptions: 0, available: 3, expired: 0 },
    });
    const list = await t.http.get(batches).set(admin.auth).expect(200);
    expect(list.body.data[0]).toMatchObject({ id: res.body.id, counts: { created: 3 } });
    const page = await t.http.get(batches).query({ limit: 1 }).set(admin.auth).expect(200);
    expect(page.body.data).toHaveLength(1);
  });

  it('exports the codes once as CSV: a second export is 410 CODES_ALREADY_EXPORTED', async () => {
    const { id, codes } = await batchOf(t, admin, { quantity: 4 });
    expect(new Set(codes).size).toBe(4);
    for (const c of codes) expect(c).toMatch(/^([0-9A-HJKMNP-TV-Z]{4}-){4}[0-9A-HJKMNP-TV-Z]{4}$/);
    const again = await t.http.post(`${batches}/${id}/export`).set(admin.auth).expect(410);
    expect(again.body.code).toBe('CODES_ALREADY_EXPORTED');
    // What is kept: the hashes, and no sealed copy any more.
    const [batch] = await t.db.query('SELECT "sealedCodes" FROM redemption_batches WHERE id = $1', [
      id,
    ]);
    expect(batch.sealedCodes).toBeNull();
    const hash = createHash('sha256').update(codes[0].replace(/-/g, '')).digest('hex');
    const [row] = await t.db.query('SELECT "batchId" FROM redemption_codes WHERE "codeHash" = $1', [
      hash,
    ]);
    expect(row.batchId).toBe(id);
    const shown = await t.http.get(`${batches}/${id}`).set(admin.auth).expect(200);
    expect(shown.body.exportedAt).not.toBeNull();
  });

  it('answers 404 for an unknown batch on every admin route', async () => {
    const none = '00000000-0000-4000-8000-000000000000';
    await t.http.get(`${batches}/${none}`).set(admin.auth).expect(404);
    await t.http.post(`${batches}/${none}/export`).set(admin.auth).expect(404);
    await t.http.post(`${batches}/${none}/disable`).set(admin.auth).expect(404);
  });

  it('keeps the admin routes to admins', async () => {
    const u = await newUser(t);
    const before = await fingerprint();
    await t.http.post(batches).set(u.auth).send({ name: 'x', credits: 1, quantity: 1 }).expect(403);
    await t.http.get(batches).set(u.auth).expect(403);
    expect(await fingerprint()).toEqual(before);
  });

  it.each([
    ['zero credits', { credits: 0 }],
    ['negative credits', { credits: -5 }],
    ['fractional credits', { credits: 1.5 }],
    ['zero quantity', { quantity: 0 }],
    ['negative quantity', { quantity: -1 }],
    ['a quantity above 10 000', { quantity: 10_001 }],
    ['zero uses per code', { usesPerCode: 0 }],
    ['an expiry in the past', { expiresAt: '2020-01-01T00:00:00Z' }],
    ['an expiry that is no date', { expiresAt: 'tomorrow' }],
    ['an empty name', { name: '   ' }],
    ['a field of the server (mass assignment)', { exportedAt: '2020-01-01T00:00:00Z' }],
  ])('refuses a batch with %s: 400 with a code, nothing written', async (_why, change) => {
    const before = await fingerprint();
    const res = await t.http
      .post(batches)
      .set(admin.auth)
      .send({ name: 'Bad', credits: 10, quantity: 2, ...change })
      .expect(400);
    expect(res.body.code).toBe('VALIDATION_FAILED');
    expect(await fingerprint()).toEqual(before);
  });

  it('refuses a code of 10 000 characters with 400, writing nothing', async () => {
    const u = await newUser(t);
    const before = await fingerprint();
    const res = await redeem(t, u, 'A'.repeat(10_000)).expect(400);
    expect(res.body.code).toBe('VALIDATION_FAILED');
    await redeem(t, u, 42 as unknown as string).expect(400);
    expect(await fingerprint()).toEqual(before);
  });

  it('writes nothing for a refused redemption', async () => {
    const u = await newUser(t);
    const before = await fingerprint();
    await redeem(t, u, 'ABCD-EFGH-JKMN-PQRS-TVWX').expect(404);
    expect(await fingerprint()).toEqual(before);
  });

  it('never counts a redemption as the first payment of a referred user: no referral reward', async () => {
    const referrer = await newUser(t);
    const { code } = (await t.http.get('/api/referrals').set(referrer.auth).expect(200)).body;
    const friend = await signUpReferred(t, code);
    const { codes } = await batchOf(t, admin, { credits: 5000 });
    await redeem(t, friend, codes[0]).expect(200);
    expect(await redemptionsOf(t, friend.user.id)).toHaveLength(1);
    const [referral] = await t.db.query('SELECT status FROM referrals WHERE "referredId" = $1', [
      friend.user.id,
    ]);
    expect(referral.status).toBe('pending');
    const rewards = await t.db.query(
      `SELECT 1 FROM credit_transactions WHERE "userId" = $1 AND reference LIKE 'referral:%'`,
      [referrer.user.id],
    );
    expect(rewards).toEqual([]);
  });

  it('leaves the ledger equal to the balances, each reference recorded once', async () => {
    const q = <T>(sql: string, params?: unknown[]) => t.db.query(sql, params) as Promise<T[]>;
    expect(await unbalanced(q)).toEqual([]);
    expect(await duplicateReferences(q)).toEqual([]);
  });
});
