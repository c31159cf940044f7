import { startProviders, type Providers } from '../../support/providers';
import { ledgerOf, newUser } from '../../support/factories';
import { parseSse } from '../../support/sse';
import { createTestApp, type TestApp } from '../../support/test-app';

// Spec v1.1.0/v1.2.0 newer model families: reasoning tokens are billed as completion tokens, the
// thinking budget reaches each provider, and the hold covers it.
describe('Reasoning models: budgets sent, reasoning tokens billed, holds cover them', () => {
  let t: TestApp;
  let p: Providers;
  const hello = [{ role: 'user', content: 'Say hello' }]; // 9 characters: 3 prompt tokens

  beforeAll(async () => {
    p = await startProviders();
    t = await createTestApp(p.env);
  });
  afterAll(async () => {
    await t.close();
    await p.stop();
  });
  beforeEach(() => p.reset());

  const cases = [
    {
      modelId: 'gpt-5-mini', // 0.000002 per token, budget 1024
      server: 'openai' as const,
      reply: {
        usage: {
          prompt_tokens: 100,
          completion_tokens: 700,
          completion_tokens_details: { reasoning_tokens: 640 },
        },
      },
      usage: { promptTokens: 100, completionTokens: 700, reasoningTokens: 640 },
      cost: 2, // ceil(800 × 0.002)
      sent: (body: Record<string, unknown>) => {
        expect(body.max_completion_tokens).toBe(300 + 1024);
        expect(body).not.toHaveProperty('max_tokens');
      },
    },
    {
      modelId: 'claude-opus-5', // 0.000025 per token, budget 2048
      server: 'anthropic' as const,
      reply: { usage: { input_tokens: 50, output_tokens: 1500, thinking_tokens: 1200 } },
      usage: { promptTokens: 50, completionTokens: 1500, reasoningTokens: 1200 },
      cost: 39, // ceil(1550 × 0.025)
      sent: (body: Record<string, unknown>) => {
        expect(body.max_tokens).toBe(300 + 2048);
        expect(body.thinking).toEqual({ type: 'enabled', budget_tokens: 2048 });
      },
    },
    {
      modelId: 'gemini-2.5-flash', // 0.0000025 per token, budget 1024
      server: 'gemini' as const,
      reply: { usage: { promptTokenCount: 8, candidatesTokenCount: 40, thoughtsTokenCount: 900 } },
      usage: { promptTokens: 8, completionTokens: 940, reasoningTokens: 900 },
      cost: 3, // ceil(948 × 0.0025)
      sent: (body: { generationConfig: Record<string, unknown> }) => {
        expect(body.generationConfig).toEqual(
          expect.objectContaining({
            maxOutputTokens: 300 + 1024,
            thinkingConfig: { thinkingBudget: 1024 },
          }),
        );
      },
    },
  ];

  describe.each(cases)('$modelId', ({ modelId, server, reply, usage, cost, sent }) => {
    it('generate: bills the reasoning tokens once, as completion; no thinking in the text', async () => {
      const u = await newUser(t);
      p[server].reply = reply;
      const res = await t.http
        .post('/api/ai/generate')
        .set(u.auth)
        .send({ modelId, messages: hello, maxTokens: 300 })
        .expect(200);
      expect(res.body).toEqual(expect.objectContaining({ usage, cost }));
      expect(res.body.text).toBe('Hello from the test model.');
      sent(p[server].requests[0].body);
      const ledger = await ledgerOf(t, u.user.id);
      expect(ledger.credits).toBe(100 - cost);
      expect(ledger.ledgerSum).toBe(ledger.credits); // no hold left open
    });

    it('stream: the same usage and cost in the done event', async () => {
      const u = await newUser(t);
      p[server].reply = reply;
      const res = await t.http
        .post('/api/ai/stream')
        .set(u.auth)
        .set('Accept', 'text/event-stream')
        .send({ modelId, messages: hello, maxTokens: 300 })
        .expect(200);
      const { events } = parseSse(res.text);
      const done = events.find(([name]) => name === 'done')?.[1];
      expect(done).toEqual(expect.objectContaining({ usage, cost }));
      const text = events.filter(([name]) => name === 'delta').map(([, d]) => d.text);
      expect(text.join('')).toBe('Hello from the test model.');
      expect((await ledgerOf(t, u.user.id)).credits).toBe(100 - cost);
    });
  });

  it('holds the worst case including the reasoning budget', async () => {
    // claude-opus-5, maxTokens 100: ceil((3 + 100 + 2048) × 0.025) = 54 credits held, although
    // without the budget ceil(103 × 0.025) = 3 would do.
    const body = { modelId: 'claude-opus-5', messages: hello, maxTokens: 100 };
    const short = await newUser(t, { credits: 53 });
    const refused = await t.http.post('/api/ai/generate').set(short.auth).send(body).expect(402);
    expect(refused.body.code).toBe('INSUFFICIENT_CREDITS');
    expect(p.anthropic.requests).toHaveLength(0);
    const enough = await newUser(t, { credits: 54 });
    await t.http.post('/api/ai/generate').set(enough.auth).send(body).expect(200);
    expect(p.anthropic.requests[0].body.max_tokens).toBe(100 + 2048);
  });

  it('lists capabilities, the reasoning budget and the parameters of each model', async () => {
    const { models } = (await t.http.get('/api/ai/models').expect(200)).body;
    const byId = (id: string) => models.find((m: { id: string }) => m.id === id);
    expect(byId('gpt-5-mini')).toEqual(
      expect.objectContaining({
        capabilities: ['vision', 'tools', 'reasoning', 'structured_output'],
        reasoningBudget: 1024,
        parameters: { maxTokens: { min: 1, max: 1000 }, systemPrompt: { maxLength: 4000 } },
      }),
    );
    expect(byId('gpt-4o').capabilities).toEqual(['vision', 'tools', 'structured_output']);
    expect(byId('gpt-4o').parameters).toEqual({
      maxTokens: { min: 1, max: 1000 },
      systemPrompt: { maxLength: 4000 },
      temperature: { min: 0, max: 2 },
      topP: { min: 0, max: 1 },
      presencePenalty: { min: -2, max: 2 },
      frequencyPenalty: { min: -2, max: 2 },
      stop: { maxItems: 4 },
    });
    expect(Object.keys(byId('claude-opus-5').parameters).sort()).toEqual([
      'maxTokens',
      'stop',
      'systemPrompt',
    ]);
    // A reasoning OpenAI model refuses the sampling fields rather than dropping them.
    const u = await newUser(t);
    const res = await t.http
      .post('/api/ai/generate')
      .set(u.auth)
      .send({ modelId: 'gpt-5-mini', messages: hello, temperature: 0.2 })
      .expect(400);
    expect(res.body.code).toBe('UNSUPPORTED_PARAMETER');
  });
});
