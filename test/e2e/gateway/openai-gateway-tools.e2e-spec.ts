import type { AddressInfo } from 'node:net';
import OpenAI from 'openai';
import type {
  ChatCompletionMessageParam,
  ChatCompletionFunctionTool,
} from 'openai/resources/chat/completions';
import { startProviders, type Providers } from '../../support/providers';
import { catalogueWithPlainModels } from '../../support/catalogue';
import { ledgerOf, newUser, type TestUser } from '../../support/factories';
import { createTestApp, type TestApp } from '../../support/test-app';

/**
 * Client tools on `/v1/chat/completions`, driven by the official `openai` SDK against each
 * provider behind the gateway: the model's calls come back to the client (never run here), the
 * client sends their results in the next turn, and every model call is metered on its own.
 */
describe('OpenAI-compatible /v1: client tools', () => {
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

  async function clientFor(u: TestUser): Promise<OpenAI> {
    const res = await t.http.post('/api/keys').set(u.auth).send({ name: 'sdk' }).expect(201);
    return new OpenAI({ baseURL, apiKey: res.body.key, maxRetries: 0 });
  }
  const consumptions = (userId: string) =>
    t.db.query(
      `SELECT amount FROM credit_transactions WHERE "userId" = $1 AND type = 'CONSUMPTION' ORDER BY "createdAt"`,
      [userId],
    );
  const openHolds = async () =>
    Number((await t.db.query('SELECT count(*) FROM credit_holds'))[0].count);
  const costOf = (answer: object) => (answer as { cost: number }).cost;

  const weather: ChatCompletionFunctionTool = {
    type: 'function',
    function: {
      name: 'get_weather',
      description: 'The weather of a city now',
      parameters: {
        type: 'object',
        properties: { city: { type: 'string' } },
        required: ['city'],
      },
    },
  };
  const question: ChatCompletionMessageParam = {
    role: 'user',
    content: 'Weather in Paris and Tokyo?',
  };
  const calls = [
    { id: 'call_paris', name: 'get_weather', arguments: { city: 'Paris' } },
    { id: 'call_tokyo', name: 'get_weather', arguments: { city: 'Tokyo' } },
  ];
  const results: ChatCompletionMessageParam[] = [
    { role: 'tool', tool_call_id: 'call_paris', content: '18°C, rain' },
    { role: 'tool', tool_call_id: 'call_tokyo', content: '25°C, sun' },
  ];
  const models = [
    { model: 'gpt-4o', upstream: () => p.openai },
    { model: 'claude-haiku-4-5', upstream: () => p.anthropic },
    { model: 'gemini-2.5-flash', upstream: () => p.gemini },
  ] as const;

  /** What the provider was sent in the second turn: the calls and their results, its own way. */
  function expectResultsSent(model: string, body: any): void {
    if (model.startsWith('gpt'))
      expect(body.messages.slice(1)).toEqual([
        {
          role: 'assistant',
          content: null,
          tool_calls: calls.map((c) => ({
            id: c.id,
            type: 'function',
            function: { name: c.name, arguments: JSON.stringify(c.arguments) },
          })),
        },
        { role: 'tool', tool_call_id: 'call_paris', content: '18°C, rain' },
        { role: 'tool', tool_call_id: 'call_tokyo', content: '25°C, sun' },
      ]);
    else if (model.startsWith('claude'))
      expect(body.messages.slice(1)).toEqual([
        {
          role: 'assistant',
          content: calls.map((c) => ({
            type: 'tool_use',
            id: c.id,
            name: c.name,
            input: c.arguments,
          })),
        },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 'call_paris', content: '18°C, rain' },
            { type: 'tool_result', tool_use_id: 'call_tokyo', content: '25°C, sun' },
          ],
        },
      ]);
    else
      expect(body.contents.slice(1)).toEqual([
        {
          role: 'model',
          parts: calls.map((c) => ({
            functionCall: { id: c.id, name: c.name, args: c.arguments },
          })),
        },
        {
          role: 'user',
          parts: [
            {
              functionResponse: {
                id: 'call_paris',
                name: 'get_weather',
                response: { output: '18°C, rain' },
              },
            },
            {
              functionResponse: {
                id: 'call_tokyo',
                name: 'get_weather',
                response: { output: '25°C, sun' },
              },
            },
          ],
        },
      ]);
  }

  /** The tools as the provider was sent them, with `tool_choice: required` in its terms. */
  function expectToolsSent(model: string, body: any): void {
    if (model.startsWith('gpt')) {
      expect(body.tools).toEqual([weather]);
      expect(body.tool_choice).toBe('required');
      expect(body.parallel_tool_calls).toBe(true);
    } else if (model.startsWith('claude')) {
      expect(body.tools).toEqual([
        {
          name: 'get_weather',
          description: 'The weather of a city now',
          input_schema: weather.function.parameters,
        },
      ]);
      expect(body.tool_choice).toEqual({ type: 'any' });
    } else {
      expect(body.tools[0].functionDeclarations[0].name).toBe('get_weather');
      expect(body.toolConfig).toEqual({ functionCallingConfig: { mode: 'ANY' } });
    }
  }

  it.each(models)(
    '$model: a two-turn tool call, whole, with parallel calls; each call metered on its own',
    async ({ model, upstream }) => {
      const u = await newUser(t);
      const client = await clientFor(u);
      const before = (await ledgerOf(t, u.user.id)).credits;
      upstream().script = [{ toolCalls: calls }, { text: 'Paris is rainy, Tokyo sunny.' }];

      const first = await client.chat.completions.create({
        model,
        messages: [question],
        tools: [weather],
        tool_choice: 'required',
        parallel_tool_calls: true,
      });
      const message = first.choices[0].message;
      expect(first.choices[0].finish_reason).toBe('tool_calls');
      expect(message.content).toBeNull();
      expect(message.tool_calls).toEqual(
        calls.map((c) => ({
          id: c.id,
          type: 'function',
          function: { name: c.name, arguments: JSON.stringify(c.arguments) },
        })),
      );
      expectToolsSent(model, upstream().requests[0].body);
      const afterFirst = (await ledgerOf(t, u.user.id)).credits;
      expect(before - afterFirst).toBe(costOf(first));

      const second = await client.chat.completions.create({
        model,
        messages: [question, message, ...results],
        tools: [weather],
      });
      expect(second.choices[0]).toEqual(
        expect.objectContaining({
          finish_reason: 'stop',
          message: expect.objectContaining({ content: 'Paris is rainy, Tokyo sunny.' }),
        }),
      );
      expectResultsSent(model, upstream().requests[1].body);
      const after = await ledgerOf(t, u.user.id);
      expect(afterFirst - after.credits).toBe(costOf(second));
      expect(await consumptions(u.user.id)).toEqual([
        { amount: -costOf(first) },
        { amount: -costOf(second) },
      ]);
      expect(after.credits).toBe(after.ledgerSum);
      expect(await openHolds()).toBe(0);
    },
  );

  it.each(models)(
    '$model: streamed tool calls in OpenAI framing, assembled by the SDK; then the results',
    async ({ model, upstream }) => {
      const u = await newUser(t);
      const client = await clientFor(u);
      upstream().script = [{ text: 'Checking.', toolCalls: calls }, { text: 'Done.' }];

      const stream = client.chat.completions.stream({
        model,
        messages: [question],
        tools: [weather],
        stream_options: { include_usage: true },
      });
      const pieces: OpenAI.Chat.Completions.ChatCompletionChunk.Choice.Delta.ToolCall[] = [];
      stream.on('chunk', (chunk) => pieces.push(...(chunk.choices[0]?.delta.tool_calls ?? [])));
      const final = await stream.finalChatCompletion();
      const message = final.choices[0].message;
      expect(final.choices[0].finish_reason).toBe('tool_calls');
      expect(message.content).toBe('Checking.');
      expect(
        message.tool_calls?.map((c) =>
          c.type === 'function'
            ? [c.id, c.function.name, JSON.parse(c.function.arguments)]
            : [c.id],
        ),
      ).toEqual(calls.map((c) => [c.id, c.name, c.arguments]));
      // Each call opens with its index, id, type and name, then its arguments' JSON text.
      expect(pieces[0]).toEqual({
        index: 0,
        id: 'call_paris',
        type: 'function',
        function: { name: 'get_weather', arguments: '' },
      });
      expect(pieces.filter((c) => c.id).map((c) => c.index)).toEqual([0, 1]);
      const usageCost = costOf(final);
      expect(final.usage?.prompt_tokens).toBeGreaterThan(0);

      const second = await client.chat.completions.create({
        model,
        messages: [
          question,
          { role: 'assistant', content: 'Checking.', tool_calls: message.tool_calls },
          ...results,
        ],
        tools: [weather],
        stream: true,
      });
      let text = '';
      for await (const chunk of second) text += chunk.choices[0]?.delta.content ?? '';
      expect(text).toBe('Done.');
      const entries = await consumptions(u.user.id);
      expect(entries).toHaveLength(2);
      if (usageCost !== undefined) expect(entries[0].amount).toBe(-usageCost);
      const ledger = await ledgerOf(t, u.user.id);
      expect(ledger.credits).toBe(ledger.ledgerSum);
    },
  );
});
