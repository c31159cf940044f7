import { duplicateReferences, unbalanced } from '../../faults/support/ledger';
import { HandClock } from '../../support/hand-clock';
import { ledgerOf, newUser, type TestUser } from '../../support/factories';
import { createTestApp, type TestApp } from '../../support/test-app';
import { batchOf, redeem, redemptionsOf } from './redemption.helpers';

describe('Redeeming a code: one grant per use, one answer for every dead code', () => {
  const clock = new HandClock();
  let t: TestApp;
  let admin: TestUser;

  beforeAll(async () => {
    t = await createTestApp({ REDEEM_RATE_PER_HOUR: '5', TRUST_PROXY: 'true' }, { clock });
    admin = await newUser(t, { role: 'ADMIN' });
  });
  afterAll(() => t.close());

  it('grants the credits once, as a REDEMPTION entry with its balance change, and audits it', async () => {
    const u = await newUser(t, { credits: 10 });
    const { id, codes } = await batchOf(t, admin, { credits: 70 });
    const res = await redeem(t, u, codes[0]).expect(200);
    expect(res.body).toEqual({ credits: 70, balance: 80 });
    const entries = await redemptionsOf(t, u.user.id);
    expect(entries).toHaveLength(1);
    expect(entries[0].amount).toBe(70);
    expect(await ledgerOf(t, u.user.id)).toMatchObject({ credits: 80, ledgerSum: 80 });
    const audit = await t.http
      .get('/api/admin/audit')
      .query({ action: 'credits.redeem', targetId: id })
      .set(admin.auth)
      .expect(200);
    expect(audit.body.data).toHaveLength(1);
    expect(audit.body.data[0]).toMatchObject({
      actorId: u.user.id,
      targetType: 'redemption_batch',
    });
    // The code itself is never written anywhere but as its hash.
    expect(JSON.stringify(audit.body.data[0])).not.toContain(codes[0]);
  });

  it('gives exactly one grant when 20 users redeem a one-use code at once', async () => {
    const users = await Promise.all(Array.from({ length: 20 }, () => newUser(t)));
    const { id, codes } = await batchOf(t, admin, { credits: 30 });
    const answers = await Promise.all(users.map((u) => redeem(t, u, codes[0])));
    const statuses = answers.map((r) => r.status).sort();
    expect(statuses).toEqual([200, ...Array(19).fill(404)]);
    for (const r of answers.filter((a) => a.status === 404))
      expect(r.body.code).toBe('CODE_INVALID');
    const [{ n }] = await t.db.query(
      `SELECT count(*)::int AS n FROM credit_transactions WHERE type = 'REDEMPTION' AND reference LIKE $1`,
      [`redemption:${await codeIdOf(id)}:%`],
    );
    expect(n).toBe(1);
    const batch = await t.http
      .get(`/api/admin/redemption-batches/${id}`)
      .set(admin.auth)
      .expect(200);
    expect(batch.body.counts).toMatchObject({
      created: 1,
      redeemed: 1,
      redemptions: 1,
      available: 0,
    });
  });

  it('refuses a code from the second its batch expires, with 410 CODE_EXPIRED', async () => {
    const expiresAt = new Date(clock.now().getTime() + 60_000);
    const { id, codes } = await batchOf(t, admin, {
      quantity: 2,
      expiresAt: expiresAt.toISOString(),
    });
    const [a, b] = [await newUser(t), await newUser(t)];
    const start = clock.at;
    try {
      clock.at = new Date(expiresAt.getTime() - 1);
      await redeem(t, a, codes[0]).expect(200);
      clock.at = expiresAt;
      const late = await redeem(t, b, codes[1]).expect(410);
      expect(late.body.code).toBe('CODE_EXPIRED');
      expect(await redemptionsOf(t, b.user.id)).toEqual([]);
      const batch = await t.http.get(`/api/admin/redemption-batches/${id}`).set(admin.auth);
      expect(batch.body).toMatchObject({ status: 'expired' });
      expect(batch.body.counts).toMatchObject({ redeemed: 1, available: 0, expired: 1 });
    } finally {
      clock.at = start;
    }
  });

  it('answers an unknown, a used-up and a disabled code alike: 404 CODE_INVALID, one message', async () => {
    const u = await newUser(t);
    const used = await batchOf(t, admin);
    await redeem(t, await newUser(t), used.codes[0]).expect(200);
    const off = await batchOf(t, admin);
    const disabled = await t.http
      .post(`/api/admin/redemption-batches/${off.id}/disable`)
      .set(admin.auth)
      .expect(200);
    expect(disabled.body.status).toBe('disabled');
    const unknown = 'ABCD-EFGH-JKMN-PQRS-TVWX';
    const answers = await Promise.all(
      [used.codes[0], off.codes[0], unknown, 'not a code'].map((c) => redeem(t, u, c)),
    );
    const shapes = answers.map((r) => ({ status: r.status, body: r.body }));
    expect(new Set(shapes.map((s) => JSON.stringify(s))).size).toBe(1);
    expect(shapes[0]).toEqual({
      status: 404,
      body: { error: 'This code is not valid', code: 'CODE_INVALID' },
    });
    expect(await redemptionsOf(t, u.user.id)).toEqual([]);
  });

  it('onePerUser with 3 uses: a user redeems once, other users take the other uses', async () => {
    const [a, b, c, d] = await Promise.all([1, 2, 3, 4].map(() => newUser(t)));
    const { id, codes } = await batchOf(t, admin, { usesPerCode: 3, credits: 40 });
    await redeem(t, a, codes[0]).expect(200);
    const again = await redeem(t, a, codes[0]).expect(409);
    expect(again.body.code).toBe('CODE_ALREADY_REDEEMED');
    await redeem(t, b, codes[0]).expect(200);
    // The refused second use was rolled back: the third user still finds one.
    await redeem(t, c, codes[0]).expect(200);
    expect((await redeem(t, d, codes[0]).expect(404)).body.code).toBe('CODE_INVALID');
    expect(await redemptionsOf(t, a.user.id)).toHaveLength(1);
    const batch = await t.http.get(`/api/admin/redemption-batches/${id}`).set(admin.auth);
    expect(batch.body.counts).toMatchObject({ redeemed: 1, redemptions: 3 });
  });

  it('lets one user take several uses when the batch is not onePerUser', async () => {
    const u = await newUser(t);
    const { codes } = await batchOf(t, admin, { usesPerCode: 2, onePerUser: false, credits: 5 });
    await redeem(t, u, codes[0]).expect(200);
    await redeem(t, u, codes[0]).expect(200);
    await redeem(t, u, codes[0]).expect(404);
    expect((await redemptionsOf(t, u.user.id)).map((e) => e.amount)).toEqual([5, 5]);
  });

  it('reads a code typed in lower case with spaces as the printed one', async () => {
    const u = await newUser(t);
    const { codes } = await batchOf(t, admin, { credits: 9 });
    const typed = ` ${codes[0].toLowerCase().replace(/-/g, ' ')} `;
    expect((await redeem(t, u, typed).expect(200)).body.credits).toBe(9);
  });

  it('limits attempts per user and per address, right or wrong (429 RATE_LIMITED)', async () => {
    const u = await newUser(t);
    for (let i = 0; i < 5; i++) await redeem(t, u, 'ZZZZ-ZZZZ-ZZZZ-ZZZZ-ZZZZ').expect(404);
    const { codes } = await batchOf(t, admin);
    const limited = await redeem(t, u, codes[0]).expect(429);
    expect(limited.body.code).toBe('RATE_LIMITED');
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    const ip = '203.0.113.7';
    for (let i = 0; i < 5; i++) await redeem(t, await newUser(t), 'wrong', ip).expect(404);
    await redeem(t, await newUser(t), codes[0], ip).expect(429);
    // The code was never looked at: it still redeems, once.
    await redeem(t, await newUser(t), codes[0]).expect(200);
  });

  it('leaves the ledger equal to the balances, each reference recorded once', async () => {
    const q = <T>(sql: string, params?: unknown[]) => t.db.query(sql, params) as Promise<T[]>;
    expect(await unbalanced(q)).toEqual([]);
    expect(await duplicateReferences(q)).toEqual([]);
  });

  async function codeIdOf(batchId: string): Promise<string> {
    const [row] = await t.db.query('SELECT id FROM redemption_codes WHERE "batchId" = $1', [
      batchId,
    ]);
    return row.id;
  }
});
