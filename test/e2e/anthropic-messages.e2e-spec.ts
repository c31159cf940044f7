import type { AddressInfo } from 'node:net';
import Anthropic from '@anthropic-ai/sdk';
import { catalogueWithPlainModels } from '../support/catalogue';
import { startProviders, type Providers } from '../support/providers';
import { ledgerOf, newUser, type TestUser } from '../support/factories';
import { createTestApp, type TestApp } from '../support/test-app';
import { PNG_BYTES } from '../support/uploads';
import { waitFor } from '../support/wait';

/**
 * `/v1/messages`, Anthropic's Messages API, driven by the official `@anthropic-ai/sdk` with only
 * its base URL and key changed, for models of all three providers.
 */
describe('Anthropic-compatible /v1/messages', () => {
  let t: TestApp;
  let p: Providers;
  let baseURL: string;

  beforeAll(async () => {
    p = await startProviders();
    t = await createTestApp({ ...p.env, MODELS_FILE: catalogueWithPlainModels('plain-model') });
    const server = t.app.getHttpServer();
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await t.close();
    await p.stop();
  });
  beforeEach(() => p.reset());

  async function keyFor(u: TestUser, body: object = {}): Promise<{ id: string; key: string }> {
    const res = await t.http
      .post('/api/keys')
      .set(u.auth)
      .send({ name: 'claude', ...body })
      .expect(201);
    return res.body;
  }
  const client = (apiKey: string) => new Anthropic({ baseURL, apiKey, maxRetries: 0 });
  const consumptions = (userId: string) =>
    t.db.query(
      `SELECT amount, "keyId", "modelId", description FROM credit_transactions
       WHERE "userId" = $1 AND type = 'CONSUMPTION' ORDER BY "createdAt"`,
      [userId],
    );
  const openHolds = async () =>
    Number((await t.db.query('SELECT count(*) FROM credit_holds'))[0].count);
  const costOf = (m: object) => (m as { cost: number }).cost;
  const caught = <T>(promise: Promise<T>) =>
    promise.then(
      () => {
        throw new Error('expected a failure');
      },
      (e: unknown) => e as InstanceType<typeof Anthropic.APIError>,
    );

  it.each(['claude-haiku-4-5', 'gpt-4o', 'gemini-2.5-flash'])(
    'answers messages.create for %s, metered through the key (x-api-key), saving nothing',
    async (model) => {
      const u = await newUser(t);
      const { id, key } = await keyFor(u);
      const before = await ledgerOf(t, u.user.id);
      const message = await client(key).messages.create({
        model,
        max_tokens: 50,
        system: 'Be brief.',
        messages: [{ role: 'user', content: [{ type: 'text', text: 'Say hello' }] }],
      });
      expect(message).toEqual(
        expect.objectContaining({
          type: 'message',
          role: 'assistant',
          model,
          content: [{ type: 'text', text: 'Hello from the test model.' }],
          stop_reason: 'end_turn',
          stop_sequence: null,
        }),
      );
      expect(message.id).toMatch(/^msg_/);
      expect(message.usage).toEqual(
        expect.objectContaining({ input_tokens: 10, output_tokens: 20 }),
      );
      const cost = costOf(message);
      expect(cost).toBeGreaterThan(0);
      expect(await consumptions(u.user.id)).toEqual([
        expect.objectContaining({ amount: -cost, keyId: id, modelId: model }),
      ]);
      expect((await ledgerOf(t, u.user.id)).credits).toBe(before.credits - cost);
      expect(await t.db.query('SELECT id FROM chats WHERE "userId" = $1', [u.user.id])).toEqual([]);
    },
  );

  it.each(['claude-haiku-4-5', 'gpt-4o', 'gemini-2.5-flash'])(
    'streams %s in Anthropic events; finalMessage holds the text, message_delta the cost',
    async (model) => {
      const u = await newUser(t);
      const { key } = await keyFor(u);
      p.openai.reply = p.anthropic.reply = p.gemini.reply = { text: 'one two three', chunks: 3 };
      const before = await ledgerOf(t, u.user.id);
      const stream = client(key).messages.stream({
        model,
        max_tokens: 50,
        messages: [{ role: 'user', content: 'Count' }],
      });
      const types: string[] = [];
      let cost: number | undefined;
      stream.on('streamEvent', (event) => {
        types.push(event.type);
        if (event.type === 'message_delta') cost = costOf(event);
      });
      const message = await stream.finalMessage();
      expect(message.content).toEqual([
        expect.objectContaining({ type: 'text', text: 'one two three' }),
      ]);
      expect(message.stop_reason).toBe('end_turn');
      expect(message.usage.output_tokens).toBeGreaterThan(0);
      expect(types[0]).toBe('message_start');
      expect(types.slice(-2)).toEqual(['message_delta', 'message_stop']);
      expect(cost).toBeGreaterThan(0);
      expect(await consumptions(u.user.id)).toHaveLength(1);
      expect((await ledgerOf(t, u.user.id)).credits).toBe(before.credits - cost!);
    },
  );

  it.each([
    ['claude-haiku-4-5', 'anthropic'],
    ['gpt-4o', 'openai'],
    ['gemini-2.5-flash', 'gemini'],
  ] as const)(
    'runs a tool round trip on %s: a streamed tool_use, then the tool_result answered',
    async (model, provider) => {
      const u = await newUser(t);
      const { key } = await keyFor(u);
      const before = await ledgerOf(t, u.user.id);
      const server = p[provider];
      const tools = [
        {
          name: 'get_weather',
          description: 'The weather of a city',
          input_schema: {
            type: 'object' as const,
            properties: { city: { type: 'string' } },
            required: ['city'],
          },
        },
      ];
      const question = { role: 'user' as const, content: 'Weather in Paris?' };
      server.script = [
        { toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris' } }] },
        { text: 'It is 18°C in Paris.' },
      ];
      const costs: number[] = [];
      const stream = client(key).messages.stream({
        model,
        max_tokens: 200,
        tools,
        messages: [question],
      });
      stream.on('streamEvent', (event) => {
        if (event.type === 'message_delta') costs.push(costOf(event));
      });
      const first = await stream.finalMessage();
      expect(first.stop_reason).toBe('tool_use');
      const use = first.content.find((b) => b.type === 'tool_use');
      expect(use).toEqual(
        expect.objectContaining({
          name: 'get_weather',
          input: { city: 'Paris' },
          id: expect.any(String),
        }),
      );

      const second = await client(key).messages.create({
        model,
        max_tokens: 200,
        tools,
        messages: [
          question,
          { role: 'assistant', content: first.content },
          {
            role: 'user',
            content: [
              {
                type: 'tool_result',
                tool_use_id: use!.type === 'tool_use' ? use!.id : '',
                content: '18°C',
              },
            ],
          },
        ],
      });
      costs.push(costOf(second));
      expect(second.stop_reason).toBe('end_turn');
      expect(second.content).toEqual([{ type: 'text', text: 'It is 18°C in Paris.' }]);
      // Both calls offered the client's tool; the second one carried its result.
      for (const { body } of server.requests)
        expect(JSON.stringify(body)).toContain('The weather of a city');
      expect(JSON.stringify(server.requests[1].body)).toContain('18°C');
      expect(server.requests).toHaveLength(2);
      expect(await consumptions(u.user.id)).toHaveLength(2);
      expect((await ledgerOf(t, u.user.id)).credits).toBe(before.credits - costs[0] - costs[1]);
    },
  );

  it('refuses tools for a model without the tools capability, charging nothing', async () => {
    const u = await newUser(t);
    const { key } = await keyFor(u);
    const ask = {
      model: 'plain-model',
      max_tokens: 10,
      tools: [{ name: 'f', input_schema: { type: 'object' as const } }],
      messages: [{ role: 'user' as const, content: 'Hi' }],
    };
    for (const refused of [
      await caught(client(key).messages.create(ask)),
      await caught(client(key).messages.stream(ask).finalMessage()),
    ]) {
      expect(refused).toBeInstanceOf(Anthropic.BadRequestError);
      expect(refused.errorCode).toBe('model_capability_missing');
    }
    expect(p.openai.requests).toHaveLength(0);
    expect(await consumptions(u.user.id)).toEqual([]);
  });

  it('sends an image block to the model as an image', async () => {
    const u = await newUser(t);
    const { key } = await keyFor(u);
    const message = await client(key).messages.create({
      model: 'claude-haiku-4-5',
      max_tokens: 50,
      messages: [
        {
          role: 'user',
          content: [
            {
              type: 'image',
              source: {
                type: 'base64',
                media_type: 'image/png',
                data: PNG_BYTES.toString('base64'),
              },
            },
            { type: 'text', text: 'What is this?' },
          ],
        },
      ],
    });
    expect(message.content[0]).toEqual(expect.objectContaining({ type: 'text' }));
    const sent = p.anthropic.requests[0].body.messages.at(-1).content;
    expect(sent).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          type: 'image',
          source: expect.objectContaining({ media_type: 'image/png' }),
        }),
      ]),
    );
  });

  it('raises AuthenticationError, PaymentRequiredError (402 billing_error) and RateLimitError', async () => {
    const bad = await caught(
      client('sk-not-a-real-key-000000000000').messages.create({
        model: 'gpt-4o',
        max_tokens: 10,
        messages: [{ role: 'user', content: 'Hi' }],
      }),
    );
    expect(bad).toBeInstanceOf(Anthropic.AuthenticationError);
    expect(bad.type).toBe('authentication_error');

    const poor = await newUser(t, { credits: 5 });
    const { key: poorKey } = await keyFor(poor);
    const billing = await caught(
      client(poorKey).messages.create({
        model: 'gpt-4o',
        max_tokens: 4000,
        messages: [{ role: 'user', content: 'Hi' }],
      }),
    );
    expect(billing).toBeInstanceOf(Anthropic.PaymentRequiredError);
    expect(billing.status).toBe(402);
    expect(billing.type).toBe('billing_error');
    expect(billing.errorCode).toBe('insufficient_credits');
    expect(await consumptions(poor.user.id)).toEqual([]);

    const rich = await newUser(t, { credits: 1000 });
    // One hold of gpt-4o with max_tokens 1000: ceil((1 + 1000) × 0.01) = 11 credits.
    const limited = await keyFor(rich, { dailyCreditLimit: 11 });
    const ask = {
      model: 'gpt-4o',
      max_tokens: 1000,
      messages: [{ role: 'user' as const, content: 'Hi' }],
    };
    await client(limited.key).messages.create(ask);
    const over = await caught(client(limited.key).messages.create(ask));
    expect(over).toBeInstanceOf(Anthropic.RateLimitError);
    expect(over.type).toBe('rate_limit_error');
    expect(over.errorCode).toBe('key_daily_limit_reached');
    expect(Number(over.headers?.get('retry-after'))).toBeGreaterThan(0);
    expect(p.openai.requests).toHaveLength(1);
  });

  it('counts input tokens with the hold estimate, charging nothing and calling no provider', async () => {
    const u = await newUser(t);
    const { key } = await keyFor(u);
    const before = await ledgerOf(t, u.user.id);
    const counted = await client(key).messages.countTokens({
      model: 'claude-haiku-4-5',
      system: 'Be brief.', // 9 characters
      messages: [{ role: 'user', content: 'Say hello, please.' }], // 18 characters
    });
    expect(counted).toEqual({ input_tokens: Math.ceil(27 / 4) });
    // Tools count as the hold counts them: the JSON of the client tools, ceil(characters / 4).
    const tool = { name: 'f', description: '', parameters: { type: 'object' } };
    const withTools = await client(key).messages.countTokens({
      model: 'claude-haiku-4-5',
      system: 'Be brief.',
      messages: [{ role: 'user', content: 'Say hello, please.' }],
      tools: [{ name: 'f', input_schema: { type: 'object' } }],
    });
    expect(withTools.input_tokens).toBe(
      Math.ceil(27 / 4) + Math.ceil(JSON.stringify({ tools: [tool] }).length / 4),
    );
    expect(p.anthropic.requests).toHaveLength(0);
    expect(await ledgerOf(t, u.user.id)).toEqual(before);
  });

  it('charges a stream the client aborts for what was produced, leaving no hold', async () => {
    const u = await newUser(t);
    const { key } = await keyFor(u);
    // The upstream goes silent after two chunks: only the abort ends its request.
    p.anthropic.reply = { text: 'a b c d e f', chunks: 6, stallAfterChunks: 2 };
    const stream = client(key).messages.stream({
      model: 'claude-haiku-4-5',
      max_tokens: 50,
      messages: [{ role: 'user', content: 'Go' }],
    });
    let seen = '';
    stream.on('text', (delta) => {
      seen += delta;
      stream.abort();
    });
    await stream.done().catch(() => undefined);
    expect(seen.length).toBeGreaterThan(0);
    expect(await waitFor(async () => p.anthropic.requests[0]?.aborted === true)).toBe(true);
    expect(await waitFor(async () => (await openHolds()) === 0)).toBe(true);
    const [entry] = await consumptions(u.user.id);
    expect(entry.description).toMatch(/estimated/);
    expect(entry.amount).toBeLessThan(0);
    const ledger = await ledgerOf(t, u.user.id);
    expect(ledger.credits).toBe(ledger.ledgerSum);
  });

  it("answers bad input with Anthropic's 400, writing nothing and calling no provider", async () => {
    const u = await newUser(t);
    const { key } = await keyFor(u);
    const before = await ledgerOf(t, u.user.id);
    const send = (body: object) =>
      t.http
        .post('/v1/messages')
        .set({ 'x-api-key': key, 'anthropic-version': '2023-06-01' })
        .send(body);
    const hi = [{ role: 'user', content: 'Hi' }];
    for (const [body, param] of [
      [{ model: 'gpt-4o', messages: hi }, 'max_tokens'],
      [{ model: 'gpt-4o', max_tokens: 10, messages: hi, top_k: 5 }, 'top_k'],
      [{ model: 'gpt-4o', max_tokens: 10, messages: hi, surprise: 1 }, 'surprise'],
      [
        {
          model: 'gpt-4o',
          max_tokens: 10,
          messages: hi,
          thinking: { type: 'enabled', budget_tokens: 2048 },
        },
        'thinking',
      ],
      [
        {
          model: 'gpt-4o',
          max_tokens: 10,
          messages: [{ role: 'user', content: [{ type: 'document' }] }],
        },
        'messages[0].content[0].type',
      ],
    ] as const) {
      const res = await send(body).expect(400);
      expect(res.body).toEqual({
        type: 'error',
        error: expect.objectContaining({
          type: 'invalid_request_error',
          message: expect.any(String),
          details: expect.objectContaining({ param }),
        }),
      });
    }
    const noKey = await t.http.post('/v1/messages').send({}).expect(401);
    expect(noKey.body.error.type).toBe('authentication_error');
    expect(p.openai.requests).toHaveLength(0);
    expect(await ledgerOf(t, u.user.id)).toEqual(before);
    expect(await openHolds()).toBe(0);
  });

  it('takes thinking on a reasoning model', async () => {
    const u = await newUser(t);
    const { key } = await keyFor(u);
    const message = await client(key).messages.create({
      model: 'gpt-5-mini',
      max_tokens: 2000,
      thinking: { type: 'enabled', budget_tokens: 1024 },
      messages: [{ role: 'user', content: 'Think.' }],
    });
    expect(message.stop_reason).toBe('end_turn');
  });
});
