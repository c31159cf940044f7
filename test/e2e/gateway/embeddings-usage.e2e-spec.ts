import { DEFAULT_MODELS } from '../../../src/models/default-models';
import { ledgerOf, newUser } from '../../support/factories';
import { startProviders, type Providers } from '../../support/providers';
import { createTestApp, type TestApp } from '../../support/test-app';

const MODEL = 'text-embedding-3-small';
/** Credits of `tokens` at the model's costPerToken (spec pricing): ceil(tokens × cpt × 1000). */
const credits = (tokens: number) =>
  Math.ceil(tokens * Number(DEFAULT_MODELS.find((m) => m.id === MODEL)!.costPerToken) * 1000);

/**
 * `/v1/embeddings` is charged and answered at the tokens the provider reported, not at our
 * estimate of ceil(characters / 4): the hold covers the estimate's worst case, the settlement
 * takes the reported count, and a provider that reports more than the hold is still charged it.
 */
describe('/v1/embeddings settles at the reported usage', () => {
  let t: TestApp;
  let p: Providers;

  beforeAll(async () => {
    p = await startProviders();
    t = await createTestApp(p.env);
  });
  afterAll(async () => {
    await t?.close();
    await p?.stop();
  });
  afterEach(() => p.reset());

  it.each([
    ['fewer', 3],
    ['more', 40_000],
  ])(
    'answers and charges %s tokens than estimated, as the provider reported them',
    async (_, reported) => {
      const u = await newUser(t, { credits: 10_000 });
      p.openai.reply = { embeddingTokens: reported };
      const input = ['x'.repeat(400), '你好世界'.repeat(10)]; // estimated 100 + 10 tokens
      const res = await t.http
        .post('/v1/embeddings')
        .set(u.auth)
        .send({ model: MODEL, input })
        .expect(200);
      expect(res.body.usage).toEqual({ prompt_tokens: reported, total_tokens: reported });
      const [entry] = await t.db.query(
        `SELECT amount, "promptTokens" FROM credit_transactions
       WHERE "userId" = $1 AND type = 'CONSUMPTION'`,
        [u.user.id],
      );
      expect(entry).toEqual({ amount: -credits(reported), promptTokens: reported });
      const ledger = await ledgerOf(t, u.user.id);
      expect(ledger.credits).toBe(ledger.ledgerSum);
      expect(ledger.credits).toBe(10_000 - credits(reported));
      const [{ open }] = await t.db.query(
        'SELECT count(*)::int AS open FROM credit_holds WHERE "userId" = $1',
        [u.user.id],
      );
      expect(open).toBe(0);
    },
  );
});
