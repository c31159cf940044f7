import Decimal from 'decimal.js';
import { DEFAULT_MODELS } from '../../../src/models/default-models';
import { ledgerOf, newUser, type TestUser } from '../../support/factories';
import { startProviders, type Providers } from '../../support/providers';
import { createTestApp, type TestApp } from '../../support/test-app';

/**
 * CREDIT_PRICING=tokens with CREDIT_MARKUP=1.5: each provider's real usage shape, with cache
 * reads, cache writes and reasoning tokens, is charged exactly markup × Σ kind tokens × kind
 * price per 1K (the default catalogue's prices), rounded up once; the CONSUMPTION entry records
 * every kind, the ledger adds up to the balance, and usage statistics show the cache savings.
 */

const MARKUP = '1.5';
const price = (id: string) => DEFAULT_MODELS.find((m) => m.id === id)!;

/** Tokens of each kind in a call, as the provider reported them. */
interface Kinds {
  input: number;
  cached: number;
  cacheWrite: number;
  output: number;
  reasoning: number;
}

/** markup × Σ kind × price, unrounded, from the catalogue entry (fallbacks by hand). */
function byHand(id: string, k: Kinds): Decimal {
  const m = price(id);
  const d = (v: number | undefined, fallback?: number) => new Decimal(String(v ?? fallback));
  return d(k.input)
    .times(d(m.inputPrice))
    .plus(d(k.cached).times(d(m.cachedInputPrice, m.inputPrice)))
    .plus(d(k.cacheWrite).times(d(m.cacheWritePrice, m.inputPrice)))
    .plus(d(k.output).times(d(m.outputPrice)))
    .plus(d(k.reasoning).times(d(m.reasoningPrice, m.outputPrice)))
    .times(MARKUP);
}

/** A prompt of `tokens` estimated tokens (4 characters each), so the hold covers the call. */
const prompt = (tokens: number) => [{ role: 'user', content: 'x'.repeat(tokens * 4) }];

interface Case {
  provider: 'openai' | 'anthropic' | 'gemini';
  model: string;
  /** Sets the local server's usage, in the provider's own shape. */
  usage: object;
  kinds: Kinds;
  /** The credits worked out by hand (comment), checked against byHand too. */
  credits: number;
  /** Estimated prompt tokens of the request. */
  promptTokens: number;
  maxTokens?: number;
}

const cases: Case[] = [
  {
    // gpt-5-mini: 1808 × 0.00025 + 8192 × 0.000025 + 500 × 0.002 + 1000 × 0.002 (reasoning at
    // the output price) = 0.452 + 0.2048 + 1 + 2 = 3.6568; × 1.5 = 5.4852 → 6.
    provider: 'openai',
    model: 'gpt-5-mini',
    usage: {
      prompt_tokens: 10000,
      completion_tokens: 1500,
      prompt_tokens_details: { cached_tokens: 8192 },
      completion_tokens_details: { reasoning_tokens: 1000 },
    },
    kinds: { input: 1808, cached: 8192, cacheWrite: 0, output: 500, reasoning: 1000 },
    credits: 6,
    promptTokens: 10000,
  },
  {
    // claude-haiku-4-5: 500 × 0.001 + 8000 × 0.0001 + 1500 × 0.00125 + 800 × 0.005
    // = 0.5 + 0.8 + 1.875 + 4 = 7.175; × 1.5 = 10.7625 → 11. The hold of a short prompt and 100
    // max tokens is 1: the rest comes from the balance (the settlement in a transaction of its own).
    provider: 'anthropic',
    model: 'claude-haiku-4-5',
    usage: {
      input_tokens: 500,
      cache_read_input_tokens: 8000,
      cache_creation_input_tokens: 1500,
      output_tokens: 800,
    },
    kinds: { input: 500, cached: 8000, cacheWrite: 1500, output: 800, reasoning: 0 },
    credits: 11,
    promptTokens: 2,
    maxTokens: 100,
  },
  {
    // gemini-2.5-flash: 5904 × 0.0003 + 4096 × 0.00003 + 400 × 0.0025 + 600 × 0.0025
    // = 1.7712 + 0.12288 + 1 + 1.5 = 4.39408; × 1.5 = 6.59112 → 7.
    provider: 'gemini',
    model: 'gemini-2.5-flash',
    usage: {
      promptTokenCount: 10000,
      cachedContentTokenCount: 4096,
      candidatesTokenCount: 400,
      thoughtsTokenCount: 600,
    },
    kinds: { input: 5904, cached: 4096, cacheWrite: 0, output: 400, reasoning: 600 },
    credits: 7,
    promptTokens: 10000,
  },
];

describe('Prices per kind of token (CREDIT_PRICING=tokens)', () => {
  let t: TestApp;
  let p: Providers;

  beforeAll(async () => {
    p = await startProviders();
    t = await createTestApp({
      ...p.env,
      CREDIT_PRICING: 'tokens',
      CREDIT_MARKUP: MARKUP,
      ANTHROPIC_PROMPT_CACHE: 'true',
    });
  });
  afterAll(async () => {
    await t.close();
    await p.stop();
  });
  beforeEach(() => p.reset());

  const consumptions = (u: TestUser) =>
    t.db.query(
      `SELECT amount, "modelId", "promptTokens", "completionTokens", "cachedTokens",
         "cacheWriteTokens", "reasoningTokens", "cacheSavings"
       FROM credit_transactions WHERE "userId" = $1 AND type = 'CONSUMPTION' ORDER BY "createdAt"`,
      [u.user.id],
    );

  it.each(cases)(
    '$provider ($model): charges Σ kind × price × markup and records every kind',
    async (c) => {
      expect(byHand(c.model, c.kinds).ceil().toNumber()).toBe(c.credits);
      const u = await newUser(t, { credits: 1000 });
      p[c.provider].reply = { usage: c.usage } as never;
      const res = await t.http
        .post('/api/ai/generate')
        .set(u.auth)
        .send({ modelId: c.model, messages: prompt(c.promptTokens), maxTokens: c.maxTokens })
        .expect(200);
      expect(res.body.cost).toBe(c.credits);
      const prompted = c.kinds.input + c.kinds.cached + c.kinds.cacheWrite;
      const completed = c.kinds.output + c.kinds.reasoning;
      expect(res.body.usage).toEqual({
        promptTokens: prompted,
        completionTokens: completed,
        cachedTokens: c.kinds.cached,
        ...(c.kinds.cacheWrite ? { cacheWriteTokens: c.kinds.cacheWrite } : {}),
        ...(c.kinds.reasoning ? { reasoningTokens: c.kinds.reasoning } : {}),
      });
      // Savings: the same call with its cache reads at the input price, less the charge.
      const full = byHand(c.model, {
        ...c.kinds,
        input: c.kinds.input + c.kinds.cached,
        cached: 0,
      });
      const savings = full.ceil().toNumber() - c.credits;
      expect(await consumptions(u)).toEqual([
        {
          amount: -c.credits,
          modelId: c.model,
          promptTokens: prompted,
          completionTokens: completed,
          cachedTokens: c.kinds.cached,
          cacheWriteTokens: c.kinds.cacheWrite || null,
          reasoningTokens: c.kinds.reasoning || null,
          cacheSavings: savings,
        },
      ]);
      // The ledger API answers what the entry stores (it once answered none of the kinds).
      const listed = await t.http.get('/api/credits/transactions').set(u.auth).expect(200);
      expect(
        listed.body.data.find((e: { type: string }) => e.type === 'CONSUMPTION'),
      ).toMatchObject({
        amount: -c.credits,
        modelId: c.model,
        promptTokens: prompted,
        completionTokens: completed,
        cachedTokens: c.kinds.cached,
        cacheWriteTokens: c.kinds.cacheWrite || null,
        reasoningTokens: c.kinds.reasoning || null,
        cacheSavings: savings,
      });
      const ledger = await ledgerOf(t, u.user.id);
      expect(ledger.credits).toBe(1000 - c.credits);
      expect(ledger.ledgerSum).toBe(ledger.credits);
      expect(
        await t.db.query('SELECT id FROM credit_holds WHERE "userId" = $1', [u.user.id]),
      ).toEqual([]);

      const stats = await t.http
        .get('/api/credits/usage')
        .query({ groupBy: 'model' })
        .set(u.auth)
        .expect(200);
      expect(stats.body.data).toEqual([
        {
          modelId: c.model,
          requests: 1,
          promptTokens: prompted,
          completionTokens: completed,
          cachedTokens: c.kinds.cached,
          cacheSavings: savings,
          credits: c.credits,
        },
      ]);
      expect(savings).toBeGreaterThan(0);
    },
  );

  it('streams charge the same as whole replies', async () => {
    const c = cases[2];
    const u = await newUser(t, { credits: 1000 });
    p.gemini.reply = { usage: c.usage } as never;
    await t.http
      .post('/api/ai/stream')
      .set(u.auth)
      .send({ modelId: c.model, messages: prompt(c.promptTokens) })
      .expect(200);
    const [entry] = await consumptions(u);
    expect(entry).toEqual(expect.objectContaining({ amount: -c.credits, cachedTokens: 4096 }));
    const ledger = await ledgerOf(t, u.user.id);
    expect([ledger.credits, ledger.ledgerSum]).toEqual([1000 - c.credits, 1000 - c.credits]);
  });

  it('estimates the prompt at the input price times the markup', async () => {
    const u = await newUser(t);
    const res = await t.http
      .post('/api/credits/estimate')
      .set(u.auth)
      .send({ modelId: 'claude-sonnet-4-5', messages: prompt(1000) })
      .expect(200);
    // 1000 × 0.003 × 1.5 = 4.5 → 5.
    expect(res.body).toEqual({ estimatedTokens: 1000, cost: 5, maxCost: 5 });
  });

  it('answers /v1/messages with input_tokens less the cache reads and writes, as Anthropic does', async () => {
    const u = await newUser(t, { credits: 1000 });
    const key = (await t.http.post('/api/keys').set(u.auth).send({ name: 'k' }).expect(201)).body
      .key as string;
    p.anthropic.reply = { usage: cases[1].usage } as never;
    const res = await t.http
      .post('/v1/messages')
      .set('x-api-key', key)
      .send({
        model: 'claude-haiku-4-5',
        max_tokens: 100,
        messages: [{ role: 'user', content: 'Hi' }],
      })
      .expect(200);
    expect(res.body.usage).toEqual({
      input_tokens: 500,
      output_tokens: 800,
      cache_read_input_tokens: 8000,
      cache_creation_input_tokens: 1500,
    });
    expect(res.body.cost).toBe(11);
  });

  it('asks Anthropic to cache the system prompt and the conversation prefix', async () => {
    const u = await newUser(t, { credits: 1000 });
    await t.http
      .post('/api/ai/generate')
      .set(u.auth)
      .send({
        modelId: 'claude-haiku-4-5',
        messages: [
          { role: 'system', content: 'You are terse.' },
          { role: 'user', content: 'First question' },
          { role: 'assistant', content: 'First answer' },
          { role: 'user', content: 'Second question' },
        ],
      })
      .expect(200);
    const body = p.anthropic.requests[0].body;
    expect(body.system).toEqual([
      { type: 'text', text: 'You are terse.', cache_control: { type: 'ephemeral' } },
    ]);
    expect(body.messages).toEqual([
      { role: 'user', content: 'First question' },
      {
        role: 'assistant',
        content: [{ type: 'text', text: 'First answer', cache_control: { type: 'ephemeral' } }],
      },
      { role: 'user', content: 'Second question' },
    ]);
  });
});

describe('Spec pricing and no prompt cache (the defaults)', () => {
  let t: TestApp;
  let p: Providers;

  beforeAll(async () => {
    p = await startProviders();
    t = await createTestApp(p.env);
  });
  afterAll(async () => {
    await t.close();
    await p.stop();
  });

  it('charges every token at costPerToken and sends no cache_control', async () => {
    const u = await newUser(t, { credits: 1000 });
    p.anthropic.reply = { usage: cases[1].usage } as never;
    const res = await t.http
      .post('/api/ai/generate')
      .set(u.auth)
      .send({
        modelId: 'claude-haiku-4-5',
        messages: [
          { role: 'system', content: 'You are terse.' },
          { role: 'user', content: 'First question' },
          { role: 'assistant', content: 'First answer' },
          { role: 'user', content: 'Second question' },
        ],
      })
      .expect(200);
    // (10000 + 800) × 0.000005 × 1000 = 54, whatever the kinds.
    expect(res.body.cost).toBe(54);
    const body = p.anthropic.requests[0].body;
    expect(body.system).toBe('You are terse.');
    expect(JSON.stringify(body.messages)).not.toContain('cache_control');
    const [entry] = await t.db.query(
      `SELECT amount, "cachedTokens", "cacheWriteTokens", "cacheSavings" FROM credit_transactions
       WHERE "userId" = $1 AND type = 'CONSUMPTION'`,
      [u.user.id],
    );
    expect(entry).toEqual({
      amount: -54,
      cachedTokens: 8000,
      cacheWriteTokens: 1500,
      cacheSavings: 0,
    });
    const ledger = await ledgerOf(t, u.user.id);
    expect([ledger.credits, ledger.ledgerSum]).toEqual([946, 946]);
  });
});
