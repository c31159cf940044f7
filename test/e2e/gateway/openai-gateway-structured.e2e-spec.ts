import type { AddressInfo } from 'node:net';
import OpenAI from 'openai';
import { zodResponseFormat } from 'openai/helpers/zod';
import { z } from 'zod';
import { startProviders, type Providers } from '../../support/providers';
import { catalogueWithPlainModels } from '../../support/catalogue';
import { ledgerOf, newUser, type TestUser } from '../../support/factories';
import { createTestApp, type TestApp } from '../../support/test-app';
import { waitFor } from '../../support/wait';

/**
 * `/v1/chat/completions` JSON answers (`response_format`), token details, an aborted tool-call
 * stream and the capability refusals, driven by the official `openai` SDK.
 */
describe('OpenAI-compatible /v1: structured answers, usage details, refusals', () => {
  let t: TestApp;
  let p: Providers;
  let baseURL: string;

  beforeAll(async () => {
    p = await startProviders();
    t = await createTestApp({ ...p.env, MODELS_FILE: catalogueWithPlainModels('plain-model') });
    const server = t.app.getHttpServer();
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  });
  afterAll(async () => {
    await t.close();
    await p.stop();
  });
  beforeEach(() => p.reset());

  async function keyOf(u: TestUser): Promise<string> {
    return (await t.http.post('/api/keys').set(u.auth).send({ name: 'sdk' }).expect(201)).body.key;
  }
  const clientFor = async (u: TestUser) =>
    new OpenAI({ baseURL, apiKey: await keyOf(u), maxRetries: 0 });
  const consumptions = (userId: string) =>
    t.db.query(
      `SELECT amount, description FROM credit_transactions WHERE "userId" = $1 AND type = 'CONSUMPTION'`,
      [userId],
    );
  const openHolds = async () =>
    Number((await t.db.query('SELECT count(*) FROM credit_holds'))[0].count);
  const Trip = z.object({ city: z.string(), days: z.number() });
  const trip = { city: 'Lisbon', days: 3 };

  it.each([
    { model: 'gpt-4o', upstream: () => p.openai },
    { model: 'claude-haiku-4-5', upstream: () => p.anthropic },
    { model: 'gemini-2.5-flash', upstream: () => p.gemini },
  ])('$model: chat.completions.parse with zodResponseFormat', async ({ model, upstream }) => {
    const u = await newUser(t);
    const client = await clientFor(u);
    const before = (await ledgerOf(t, u.user.id)).credits;
    upstream().reply = { json: trip };
    const done = await client.chat.completions.parse({
      model,
      messages: [{ role: 'user', content: 'Plan a trip' }],
      response_format: zodResponseFormat(Trip, 'trip'),
    });
    expect(done.choices[0].message.parsed).toEqual(trip);
    expect(done.choices[0].finish_reason).toBe('stop');
    const body = upstream().requests[0].body;
    if (model.startsWith('gpt')) {
      expect(body.response_format).toEqual(
        expect.objectContaining({
          type: 'json_schema',
          json_schema: expect.objectContaining({ name: 'trip', strict: true }),
        }),
      );
    } else if (model.startsWith('claude')) {
      // The answer is asked for as the input of one forced tool whose schema is the format's.
      expect(body.tool_choice).toEqual({ type: 'tool', name: 'json_answer' });
      expect(body.tools[0].input_schema.properties).toEqual({
        city: { type: 'string' },
        days: { type: 'number' },
      });
    } else {
      expect(body.generationConfig).toEqual(
        expect.objectContaining({ responseMimeType: 'application/json' }),
      );
      expect(body.generationConfig.responseJsonSchema.required).toEqual(['city', 'days']);
    }
    const cost = (done as unknown as { cost: number }).cost;
    expect(await consumptions(u.user.id)).toEqual([expect.objectContaining({ amount: -cost })]);
    expect(before - (await ledgerOf(t, u.user.id)).credits).toBe(cost);
  });

  it('streams a structured answer from Anthropic as text deltas (the answer tool never shows)', async () => {
    const client = await clientFor(await newUser(t));
    p.anthropic.reply = { json: trip };
    const stream = client.chat.completions.stream({
      model: 'claude-haiku-4-5',
      messages: [{ role: 'user', content: 'Plan a trip' }],
      response_format: zodResponseFormat(Trip, 'trip'),
    });
    const final = await stream.finalChatCompletion();
    expect(final.choices[0].message.parsed).toEqual(trip);
    expect(final.choices[0].message.tool_calls ?? []).toEqual([]);
    expect(final.choices[0].finish_reason).toBe('stop');
  });

  it.each([
    {
      model: 'gpt-5-mini',
      set: () =>
        (p.openai.reply = {
          usage: {
            prompt_tokens: 100,
            completion_tokens: 50,
            prompt_tokens_details: { cached_tokens: 64 },
            completion_tokens_details: { reasoning_tokens: 30 },
          },
        }),
    },
    {
      model: 'claude-haiku-4-5',
      set: () =>
        (p.anthropic.reply = {
          usage: {
            input_tokens: 36,
            cache_read_input_tokens: 64,
            output_tokens: 50,
            thinking_tokens: 30,
          },
        }),
    },
    {
      model: 'gemini-2.5-flash',
      set: () =>
        (p.gemini.reply = {
          usage: {
            promptTokenCount: 100,
            cachedContentTokenCount: 64,
            candidatesTokenCount: 20,
            thoughtsTokenCount: 30,
          },
        }),
    },
  ])('$model: cached and reasoning token details, whole and streamed', async ({ model, set }) => {
    const client = await clientFor(await newUser(t));
    const expected = {
      prompt_tokens: 100,
      completion_tokens: 50,
      total_tokens: 150,
      prompt_tokens_details: { cached_tokens: 64 },
      completion_tokens_details: { reasoning_tokens: 30 },
    };
    set();
    const whole = await client.chat.completions.create({
      model,
      messages: [{ role: 'user', content: 'Hi' }],
    });
    expect(whole.usage).toEqual(expected);
    set();
    const stream = await client.chat.completions.create({
      model,
      messages: [{ role: 'user', content: 'Hi' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    let usage: unknown;
    for await (const chunk of stream) if (chunk.usage) usage = chunk.usage;
    expect(usage).toEqual(expected);
  });

  it('charges an aborted streamed tool-call answer for what it produced, no hold left open', async () => {
    const u = await newUser(t);
    const client = await clientFor(u);
    // The upstream sends one whole call, then goes silent: only the client's abort ends it.
    p.anthropic.reply = {
      toolCalls: [
        { id: 'call_1', name: 'lookup', arguments: { q: 'a'.repeat(400) } },
        { id: 'call_2', name: 'lookup', arguments: { q: 'b' } },
      ],
      stallAfterToolCalls: 1,
    };
    const controller = new AbortController();
    const stream = await client.chat.completions.create(
      {
        model: 'claude-haiku-4-5',
        messages: [{ role: 'user', content: 'Look it up' }],
        tools: [{ type: 'function', function: { name: 'lookup', parameters: { type: 'object' } } }],
        stream: true,
      },
      { signal: controller.signal },
    );
    const ids: string[] = [];
    for await (const chunk of stream) {
      for (const call of chunk.choices[0]?.delta.tool_calls ?? []) if (call.id) ids.push(call.id);
      if (chunk.choices[0]?.delta.tool_calls?.some((c) => c.function?.arguments))
        controller.abort();
    }
    expect(ids).toEqual(['call_1']);
    expect(await waitFor(async () => p.anthropic.requests[0]?.aborted === true)).toBe(true);
    expect(await waitFor(async () => (await openHolds()) === 0)).toBe(true);
    const [entry] = await consumptions(u.user.id);
    expect(entry.description).toMatch(/estimated/);
    // The call's 400-character arguments count toward the estimated completion tokens.
    expect(entry.description).toMatch(/\+ 1\d\d completion tokens/);
    const ledger = await ledgerOf(t, u.user.id);
    expect(ledger.credits).toBe(ledger.ledgerSum);
  });

  it('refuses tools and JSON answers to a model without the capability (400, nothing changes)', async () => {
    const u = await newUser(t);
    const key = await keyOf(u);
    const before = await ledgerOf(t, u.user.id);
    const send = (body: object) =>
      t.http
        .post('/v1/chat/completions')
        .set({ Authorization: `Bearer ${key}` })
        .send({ model: 'plain-model', messages: [{ role: 'user', content: 'Hi' }], ...body })
        .expect(400);
    const tools = [{ type: 'function', function: { name: 'lookup' } }];
    const noTools = await send({ tools });
    expect(noTools.body.error).toEqual(
      expect.objectContaining({ code: 'model_capability_missing', type: 'invalid_request_error' }),
    );
    expect(noTools.body.error.message).toMatch(/tools/);
    const noJson = await send({ response_format: { type: 'json_object' } });
    expect(noJson.body.error.code).toBe('model_capability_missing');
    expect(noJson.body.error.message).toMatch(/structured_output/);
    // Still refused by name: several choices, log probabilities, audio.
    for (const [param, value] of [
      ['n', 2],
      ['logprobs', true],
      ['audio', { voice: 'alloy', format: 'mp3' }],
    ] as const) {
      const res = await send({ model: 'gpt-4o', [param]: value });
      expect(res.body.error).toEqual(
        expect.objectContaining({ code: 'unsupported_parameter', param }),
      );
    }
    // A tool result answering no earlier call, and a tool_choice naming no tool.
    await send({
      model: 'gpt-4o',
      messages: [
        { role: 'user', content: 'Hi' },
        { role: 'tool', tool_call_id: 'call_x', content: 'r' },
      ],
    });
    await send({
      model: 'gpt-4o',
      tools,
      tool_choice: { type: 'function', function: { name: 'other' } },
    });
    expect(await ledgerOf(t, u.user.id)).toEqual(before);
    expect(p.openai.requests).toEqual([]);
    expect(await openHolds()).toBe(0);
  });

  it('store: true saves the turn: the earlier tool calls and results with their tool column', async () => {
    const u = await newUser(t);
    const client = await clientFor(u);
    const call = {
      id: 'call_1',
      type: 'function' as const,
      function: { name: 'lookup', arguments: '{"q":"a"}' },
    };
    const done = await client.chat.completions.create({
      model: 'gpt-4o',
      store: true,
      messages: [
        { role: 'user', content: 'Look it up' },
        { role: 'assistant', content: null, tool_calls: [call] },
        { role: 'tool', tool_call_id: 'call_1', content: 'found' },
      ],
      tools: [{ type: 'function', function: { name: 'lookup' } }],
    });
    const chatId = (done as unknown as { chat_id: string }).chat_id;
    const rows = await t.db.query(
      'SELECT role, content, tool FROM messages WHERE "chatId" = $1 ORDER BY seq',
      [chatId],
    );
    expect(rows).toEqual([
      { role: 'USER', content: 'Look it up', tool: null },
      {
        role: 'ASSISTANT',
        content: '',
        tool: { calls: [{ id: 'call_1', name: 'lookup', arguments: { q: 'a' } }] },
      },
      { role: 'TOOL', content: 'found', tool: { id: 'call_1', name: 'lookup', ok: true } },
      { role: 'ASSISTANT', content: 'Hello from the test model.', tool: null },
    ]);
  });
});
