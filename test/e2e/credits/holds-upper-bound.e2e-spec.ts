import { CreditsService } from '../../../src/credits/credits.service';
import { ledgerOf, newUser } from '../../support/factories';
import { startProviders, type Providers } from '../../support/providers';
import { createTestApp, type TestApp } from '../../support/test-app';

/**
 * The hold is an upper bound of the prompt whatever its script: each non-ASCII code point counts
 * as a token (ASCII stays ceil(characters / 4)), for the hold, `count_tokens` and a cut stream's
 * estimate alike; the spec's estimate endpoint keeps ceil(characters / 4).
 */
describe('holds: the prompt estimate is an upper bound', () => {
  let t: TestApp;
  let p: Providers;
  // 10 000 CJK characters: about 10 000 tokens at any provider, 2 500 by ceil(length / 4).
  const cjk = '数据库事务'.repeat(2000);
  const ask = { modelId: 'gpt-4o-mini', messages: [{ role: 'user', content: cjk }] };

  beforeAll(async () => {
    p = await startProviders();
    t = await createTestApp(p.env);
  });
  afterAll(async () => {
    await t.close();
    await p.stop();
  });
  beforeEach(() => p.reset());

  it('admits one of 10 parallel CJK calls when the balance covers one hold (402 for the rest)', async () => {
    // gpt-4o-mini: 0.0006 credits a token. Hold: (10 000 + 1000 maxTokens) × 0.0006 = 6.6 → 7;
    // counting 4 characters a token it would be (2 500 + 1000) × 0.0006 = 2.1 → 3, and a
    // balance of 10 would admit three.
    const u = await newUser(t, { credits: 10 });
    p.openai.reply = { text: '好', usage: { prompt_tokens: 10_000, completion_tokens: 20 } };
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => t.http.post('/api/ai/generate').set(u.auth).send(ask)),
    );
    const ok = answers.filter((r) => r.status === 200);
    const refused = answers.filter((r) => r.status === 402);
    expect(ok).toHaveLength(1);
    expect(refused).toHaveLength(9);
    for (const r of refused) {
      expect(r.body.code).toBe('INSUFFICIENT_CREDITS');
      expect(r.body.required).toBe(7);
    }
    expect(p.openai.requests).toHaveLength(1);
    // The reported usage fitted the hold: 10 020 × 0.0006 = 6.012 → 7, nothing written off.
    expect(ok[0].body.cost).toBe(7);
    const ledger = await ledgerOf(t, u.user.id);
    expect(ledger.credits).toBe(3);
    expect(ledger.credits).toBe(ledger.ledgerSum);
    const [holds] = await t.db.query('SELECT count(*)::int AS n FROM credit_holds');
    expect(holds.n).toBe(0);
  });

  it('counts the same tokens for count_tokens; the estimate endpoint keeps ceil(length / 4)', async () => {
    const u = await newUser(t);
    const { key } = (await t.http.post('/api/keys').set(u.auth).send({ name: 'k' }).expect(201))
      .body;
    const counted = await t.http
      .post('/v1/messages/count_tokens')
      .set('x-api-key', key)
      .send({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: `${cjk} and ok` }] })
      .expect(200);
    // 10 000 CJK code points, then " and ok" (7 ASCII characters → 2 tokens).
    expect(counted.body.input_tokens).toBe(10_002);
    const estimate = await t.http
      .post('/api/credits/estimate')
      .set(u.auth)
      .send({ modelId: 'gpt-4o-mini', messages: [{ role: 'user', content: cjk }] })
      .expect(200);
    expect(estimate.body.estimatedTokens).toBe(2500);
  });
});

describe.each(['true', 'false'])(
  'holds: a shortfall is owed and collected before the next hold (BATCH_STATEMENTS=%s)',
  (batch) => {
    let t: TestApp;
    let p: Providers;
    const ask = { modelId: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Tell me' }] };

    beforeAll(async () => {
      p = await startProviders();
      t = await createTestApp({ ...p.env, BATCH_STATEMENTS: batch });
    });
    afterAll(async () => {
      await t.close();
      await p.stop();
    });
    beforeEach(() => p.reset());

    it('flags the settlement, refuses until the balance covers debt + hold, then collects it', async () => {
      const u = await newUser(t, { credits: 10 });
      // Held: (2 + 1000) × 0.0006 → 1. Reported: (30 000 + 20) × 0.0006 = 18.012 → 19, of which
      // the hold and the balance cover 10: 9 are owed.
      p.openai.reply = { usage: { prompt_tokens: 30_000, completion_tokens: 20 } };
      const first = await t.http.post('/api/ai/generate').set(u.auth).send(ask).expect(200);
      expect(first.body.cost).toBe(10);
      const [flagged] = await t.db.query(
        `SELECT amount, shortfall FROM credit_transactions WHERE "userId" = $1 AND type = 'CONSUMPTION'`,
        [u.user.id],
      );
      expect(flagged).toEqual({ amount: -10, shortfall: 9 });

      p.reset();
      await t.app.get(CreditsService).adjustTo(u.user.id, 5, 'top-up');
      const refused = await t.http.post('/api/ai/generate').set(u.auth).send(ask).expect(402);
      expect(refused.body).toEqual(
        expect.objectContaining({
          code: 'INSUFFICIENT_CREDITS',
          required: 10,
          balance: 5,
          shortfall: 9,
        }),
      );
      expect(p.openai.requests).toHaveLength(0);

      await t.app.get(CreditsService).adjustTo(u.user.id, 15, 'top-up');
      const paid = await t.http.post('/api/ai/generate').set(u.auth).send(ask).expect(200);
      expect(paid.body.cost).toBe(1);
      const collected = await t.db.query(
        `SELECT amount FROM credit_transactions
         WHERE "userId" = $1 AND reference LIKE 'shortfall:%'`,
        [u.user.id],
      );
      expect(collected).toEqual([{ amount: -9 }]);
      const [owed] = await t.db.query('SELECT credits FROM credit_shortfalls WHERE "userId" = $1', [
        u.user.id,
      ]);
      expect(owed.credits).toBe(0);
      const ledger = await ledgerOf(t, u.user.id);
      expect(ledger.credits).toBe(15 - 9 - 1);
      expect(ledger.credits).toBe(ledger.ledgerSum);
    });
  },
);
