import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AiService } from '../../../src/ai';
import { DEFAULT_MODELS } from '../../../src/models/default-models';
import { PriceBook } from '../../../src/prices/price-book.service';
import { PriceSourceServer } from '../../servers/price-source';
import { ledgerOf, newUser, sessionOf, type TestUser } from '../../support/factories';
import { HandClock } from '../../support/hand-clock';
import { startProviders, type Providers } from '../../support/providers';
import { createTestApp, type TestApp } from '../../support/test-app';

/** The default catalogue and `unpriced-model`, an OpenAI model stating no price per kind. */
function catalogueWithUnpriced(): string {
  const file = join(mkdtempSync(join(tmpdir(), 'models-')), 'models.json');
  const { inputPrice, outputPrice, cachedInputPrice, ...bare } = DEFAULT_MODELS[0];
  void [inputPrice, outputPrice, cachedInputPrice];
  writeFileSync(
    file,
    JSON.stringify([...DEFAULT_MODELS, { ...bare, id: 'unpriced-model', name: 'Unpriced' }]),
  );
  return file;
}

const FIXTURE = JSON.parse(
  readFileSync(join(__dirname, '../../servers/litellm-prices.fixture.json'), 'utf8'),
);
const hi = [{ role: 'user', content: 'hi' }];

/**
 * CREDIT_PRICING=tokens with a price source (a local server serving LiteLLM's format): an
 * unpriced model is refused before anything goes upstream; the sync applies a decrease at once,
 * holds a 40 % increase for an admin, keeps and flags a model gone from the source; a call
 * admitted before a change is charged at the old version; every applied change is audited.
 */
describe('The price catalogue', () => {
  let t: TestApp;
  let p: Providers;
  let source: PriceSourceServer;
  let admin: TestUser;

  beforeAll(async () => {
    p = await startProviders();
    source = await new PriceSourceServer().start();
    t = await createTestApp({
      ...p.env,
      CREDIT_PRICING: 'tokens',
      PRICES_URL: source.url,
      MODELS_FILE: catalogueWithUnpriced(),
    });
    admin = await newUser(t, { role: 'ADMIN' });
  });
  afterAll(async () => {
    await t?.close();
    await source?.stop();
    await p?.stop();
  });
  afterEach(() => p.reset());

  const generate = (u: TestUser, modelId: string) =>
    t.http.post('/api/ai/generate').set(u.auth).send({ modelId, messages: hi });
  const lastCharge = async (u: TestUser) =>
    (
      await t.db.query(
        `SELECT -amount AS credits FROM credit_transactions
         WHERE "userId" = $1 AND type = 'CONSUMPTION' ORDER BY "createdAt" DESC LIMIT 1`,
        [u.user.id],
      )
    )[0]?.credits;

  it('refuses a model without a price with 400 MODEL_NOT_PRICED: nothing held, nothing sent', async () => {
    const u = await newUser(t, { credits: 1000 });
    const res = await generate(u, 'unpriced-model').expect(400);
    expect(res.body.code).toBe('MODEL_NOT_PRICED');
    expect(p.openai.requests).toHaveLength(0);
    expect(await ledgerOf(t, u.user.id)).toMatchObject({ credits: 1000, ledgerSum: 1000 });
    const est = await t.http
      .post('/api/credits/estimate')
      .set(u.auth)
      .send({ modelId: 'unpriced-model', messages: hi });
    expect([est.status, est.body.code]).toEqual([400, 'MODEL_NOT_PRICED']);
  });

  it('syncs: a decrease applies, a 40 % increase waits for approval, a missing model keeps its price', async () => {
    const u = await newUser(t, { credits: 100_000 });
    // PRO's daily limit (10 000 credits) leaves room for the large calls below.
    await t.db.query(`UPDATE users SET plan = 'PRO' WHERE id = $1`, [u.user.id]);
    // Before the sync: gpt-4o-mini at the catalogue's 0.15 / 0.6 USD per million:
    // (1 000 000 × 0.15 + 100 000 × 0.6) / 1000 = 210 credits.
    p.openai.reply = { usage: { prompt_tokens: 1_000_000, completion_tokens: 100_000 } };
    await generate(u, 'gpt-4o-mini').expect(200);
    expect(await lastCharge(u)).toBe(210);

    source.list = FIXTURE;
    const report = await t.http.post('/api/admin/prices/sync').set(admin.auth).expect(200);
    expect(report.body.applied).toEqual(
      expect.arrayContaining(['gpt-4o-mini', 'text-embedding-3-small']),
    );
    expect(report.body.held).toEqual(['claude-haiku-4-5']);
    expect(report.body.missing).toEqual(expect.arrayContaining(['gemini-2.5-flash']));

    // The decrease applies at once: 0.1 / 0.4 → 100 + 40 = 140 credits.
    await generate(u, 'gpt-4o-mini').expect(200);
    expect(await lastCharge(u)).toBe(140);
    // A missing model keeps its price (the catalogue's), flagged.
    const [gap] = await t.db.query(
      `SELECT "modelId" FROM price_source_gaps WHERE "modelId" = 'gemini-2.5-flash'`,
    );
    expect(gap).toBeDefined();

    // The increase waits: haiku still at 1 / 5 USD per million: 1000 + 500 = 1500 credits.
    p.anthropic.reply = { usage: { input_tokens: 1_000_000, output_tokens: 100_000 } };
    await generate(u, 'claude-haiku-4-5').expect(200);
    expect(await lastCharge(u)).toBe(1500);
    const pending = await t.http
      .get('/api/admin/prices/changes')
      .query({ status: 'PENDING' })
      .set(admin.auth)
      .expect(200);
    expect(pending.body.data).toEqual([
      expect.objectContaining({ modelId: 'claude-haiku-4-5', increasePercent: '40' }),
    ]);
    // A second sync of the same source holds the same change, once.
    await t.http.post('/api/admin/prices/sync').set(admin.auth).expect(200);
    const [{ n }] = await t.db.query(`SELECT count(*)::int AS n FROM price_changes`);
    expect(n).toBe(1);

    // A call admitted before the approval is charged at the old version...
    const ai = t.app.get(AiService);
    const admitted = await ai.admit(
      { ...sessionOf(u), plan: 'PRO' },
      { modelId: 'claude-haiku-4-5', messages: [{ role: 'user', content: 'hi' }] },
      { store: false },
    );
    const id = pending.body.data[0].id;
    await t.http.post(`/api/admin/prices/changes/${id}/approve`).set(admin.auth).expect(200);
    await ai.streamAdmitted(admitted);
    expect(await lastCharge(u)).toBe(1500);
    // ...and a call admitted after it at the new one: 1400 + 500 = 1900 credits.
    await generate(u, 'claude-haiku-4-5').expect(200);
    expect(await lastCharge(u)).toBe(1900);
    await t.http.post(`/api/admin/prices/changes/${id}/approve`).set(admin.auth).expect(404);

    const versions = await t.http
      .get('/api/admin/prices/models/claude-haiku-4-5/versions')
      .set(admin.auth)
      .expect(200);
    expect(versions.body.data.map((v: { source: string }) => v.source)).toEqual([
      'catalogue',
      'admin',
    ]);
    const audited = await t.db.query(
      `SELECT action, "targetId", "actorType" FROM audit_events
       WHERE action LIKE 'price.%' ORDER BY at, "targetId"`,
    );
    expect(audited).toEqual(
      expect.arrayContaining([
        { action: 'price.apply', targetId: 'gpt-4o-mini', actorType: 'system' },
        { action: 'price.hold', targetId: 'claude-haiku-4-5', actorType: 'system' },
        { action: 'price.missing', targetId: 'gemini-2.5-flash', actorType: 'system' },
        { action: 'price.apply', targetId: 'claude-haiku-4-5', actorType: 'admin' },
      ]),
    );
    const ledger = await ledgerOf(t, u.user.id);
    expect(ledger.credits).toBe(ledger.ledgerSum);
  });

  it("shows each model's prices per kind: /api/ai/models, and OpenRouter's pricing on /v1/models", async () => {
    const u = await newUser(t);
    const { body } = await t.http.get('/api/ai/models').expect(200);
    const sonnet = body.models.find((m: { id: string }) => m.id === 'claude-sonnet-4-5');
    expect(sonnet.prices).toMatchObject({
      markup: '1',
      perMillion: {
        input: '3',
        cachedInput: '0.3',
        cacheWrite5m: '3.75',
        cacheWrite1h: '6',
        output: '15',
        reasoning: '15',
      },
    });
    expect(
      body.models.find((m: { id: string }) => m.id === 'unpriced-model').prices,
    ).toBeUndefined();
    expect(body.markups).toEqual({ default: '1', plans: {} });
    const v1 = await t.http.get('/v1/models').set(u.auth).expect(200);
    const listed = v1.body.data.find((m: { id: string }) => m.id === 'claude-sonnet-4-5');
    expect(listed.pricing).toMatchObject({
      prompt: '0.000003',
      completion: '0.000015',
      input_cache_read: '0.0000003',
      input_cache_write: '0.00000375',
      input_cache_write_1h: '0.000006',
    });
    expect(
      v1.body.data.find((m: { id: string }) => m.id === 'unpriced-model').pricing,
    ).toBeUndefined();
  });

  it('leaves the admin routes to admins', async () => {
    const u = await newUser(t);
    await t.http.post('/api/admin/prices/sync').set(u.auth).expect(403);
    await t.http.get('/api/admin/prices/changes').set(u.auth).expect(403);
  });
});

describe('An explicit fallback price', () => {
  let t: TestApp;
  let p: Providers;
  const clock = new HandClock();

  beforeAll(async () => {
    p = await startProviders();
    t = await createTestApp(
      {
        ...p.env,
        CREDIT_PRICING: 'tokens',
        MODELS_FILE: catalogueWithUnpriced(),
        PRICE_FALLBACK_INPUT: '2',
        PRICE_FALLBACK_OUTPUT: '8',
        CREDIT_MARKUP_PLANS: 'PRO=1.5',
      },
      { clock },
    );
  });
  afterAll(async () => {
    await t?.close();
    await p?.stop();
  });

  it('charges a model without a price at the fallback, times the plan markup', async () => {
    const u = await newUser(t, { credits: 10_000 });
    p.openai.reply = { usage: { prompt_tokens: 100_000, completion_tokens: 10_000 } };
    // (100 000 × 2 + 10 000 × 8) / 1000 = 280 credits at the default markup 1.
    await t.http
      .post('/api/ai/generate')
      .set(u.auth)
      .send({ modelId: 'unpriced-model', messages: hi })
      .expect(200);
    const [{ credits }] = await t.db.query(
      `SELECT -amount AS credits FROM credit_transactions WHERE "userId" = $1 AND type = 'CONSUMPTION'`,
      [u.user.id],
    );
    expect(credits).toBe(280);
  });

  it("prices a call at the version in force at the Clock's time, not the machine's", async () => {
    const u = await newUser(t, { credits: 10_000 });
    p.openai.reply = { usage: { prompt_tokens: 100_000, completion_tokens: 10_000 } };
    const day = 24 * 3600 * 1000;
    // A version from tomorrow on (the clock's): 1 / 4 USD per million, 100 + 40 = 140 credits.
    await t.db.query(
      `INSERT INTO price_versions ("modelId", "effectiveAt", prices, source)
       VALUES ('unpriced-model', $1, '{"input": "1", "output": "4"}', 'admin')`,
      [new Date(clock.now().getTime() + day)],
    );
    await t.app.get(PriceBook).reload();
    const charged = async () => {
      await t.http
        .post('/api/ai/generate')
        .set(u.auth)
        .send({ modelId: 'unpriced-model', messages: hi })
        .expect(200);
      const [{ credits }] = await t.db.query(
        `SELECT -amount AS credits FROM credit_transactions
         WHERE "userId" = $1 AND type = 'CONSUMPTION' ORDER BY "createdAt" DESC LIMIT 1`,
        [u.user.id],
      );
      return credits;
    };
    expect(await charged()).toBe(280); // today: still the fallback
    clock.tick(2 * day);
    expect(await charged()).toBe(140); // the day after tomorrow, by the clock: the new version
  });
});
