import OpenAI from 'openai';
import { zodTextFormat } from 'openai/helpers/zod';
import type { ResponseInputItem } from 'openai/resources/responses/responses';
import { z } from 'zod';
import { startProviders, type Providers } from '../../support/providers';
import { newUser, type TestUser } from '../../support/factories';
import { createTestApp, type TestApp } from '../../support/test-app';
import { waitFor } from '../../support/wait';
import { balanceOf, MODELS, sdkClient, v1BaseUrl } from './openai-responses.helpers';

const WEATHER = {
  type: 'function' as const,
  name: 'weather',
  description: 'The weather in a city',
  parameters: {
    type: 'object',
    properties: { city: { type: 'string' } },
    required: ['city'],
    additionalProperties: false,
  },
  strict: true,
};

/**
 * `/v1/responses` with function tools the client runs and structured output, through the
 * `openai` SDK with each provider behind it: the model's calls come back as `function_call`
 * items, never run here, and their results go back as `function_call_output` items.
 */
describe('OpenAI Responses API: function tools, text.format, usage details, stream failures', () => {
  let t: TestApp;
  let p: Providers;
  let baseURL: string;

  beforeAll(async () => {
    p = await startProviders();
    t = await createTestApp(p.env);
    baseURL = await v1BaseUrl(t);
  });
  afterAll(async () => {
    await t.close();
    await p.stop();
  });
  beforeEach(() => p.reset());

  const clientFor = (u: TestUser, scopes?: string[]) => sdkClient(t, baseURL, u, scopes);
  const server = (model: string) =>
    model.startsWith('gpt') ? p.openai : model.startsWith('claude') ? p.anthropic : p.gemini;
  const balance = (userId: string) => balanceOf(t, userId);
  const consumptions = async (userId: string): Promise<number[]> =>
    (
      await t.db.query(
        `SELECT amount FROM credit_transactions WHERE "userId" = $1 AND type = 'CONSUMPTION' ORDER BY "createdAt"`,
        [userId],
      )
    ).map((r: { amount: number }) => r.amount);
  const costOf = (r: object) => (r as { cost: number }).cost;

  it.each(MODELS)(
    'returns %s function calls whole and answers once given their outputs',
    async (model) => {
      const u = await newUser(t);
      const client = await clientFor(u);
      const before = await balance(u.user.id);
      server(model).script = [
        { toolCalls: [{ id: 'call_paris', name: 'weather', arguments: { city: 'Paris' } }] },
        { text: 'Sunny in Paris.' },
      ];
      const input: ResponseInputItem[] = [{ role: 'user', content: 'Weather in Paris?' }];
      const first = await client.responses.create({ model, input, tools: [WEATHER] });
      const calls = first.output.filter((item) => item.type === 'function_call');
      expect(calls).toEqual([
        expect.objectContaining({
          type: 'function_call',
          name: 'weather',
          arguments: '{"city":"Paris"}',
          status: 'completed',
        }),
      ]);
      expect(first.status).toBe('completed');
      // The tools were offered upstream (each provider names them `tools`).
      expect(server(model).requests[0].body.tools).toBeDefined();
      const callId = calls[0].type === 'function_call' ? calls[0].call_id : '';
      const second = await client.responses.create({
        model,
        tools: [WEATHER],
        input: [
          ...input,
          ...(first.output as ResponseInputItem[]),
          { type: 'function_call_output', call_id: callId, output: '{"sky":"sunny"}' },
        ],
      });
      expect(second.output_text).toBe('Sunny in Paris.');
      // The tool result went upstream; nothing was run here.
      expect(JSON.stringify(server(model).requests[1].body)).toContain('sunny');
      const charged = [costOf(first), costOf(second)];
      expect(await consumptions(u.user.id)).toEqual(charged.map((c) => -c));
      expect(await balance(u.user.id)).toBe(before - charged[0] - charged[1]);
    },
  );

  it.each(MODELS)('streams %s function calls as their events', async (model) => {
    const u = await newUser(t);
    const client = await clientFor(u);
    server(model).reply = {
      toolCalls: [
        { id: 'call_a', name: 'weather', arguments: { city: 'Oslo' } },
        { id: 'call_b', name: 'weather', arguments: { city: 'Rome' } },
      ],
    };
    const stream = client.responses.stream({ model, input: 'Oslo and Rome?', tools: [WEATHER] });
    const types: string[] = [];
    for await (const event of stream) types.push(event.type);
    const response = await stream.finalResponse();
    const call = [
      'response.output_item.added',
      'response.function_call_arguments.delta',
      'response.function_call_arguments.done',
      'response.output_item.done',
    ];
    expect(types.slice(0, 2)).toEqual(['response.created', 'response.in_progress']);
    expect(types.slice(-9)).toEqual([...call, ...call, 'response.completed']);
    expect(
      response.output.flatMap((item) => (item.type === 'function_call' ? [item.arguments] : [])),
    ).toEqual(['{"city":"Oslo"}', '{"city":"Rome"}']);
    expect(await consumptions(u.user.id)).toEqual([-costOf(response)]);
  });

  it('continues a stored function call with previous_response_id and its output alone', async () => {
    const u = await newUser(t);
    const client = await clientFor(u, ['ai', 'chats:write']);
    p.gemini.script = [
      { toolCalls: [{ name: 'weather', arguments: { city: 'Lima' } }] },
      { text: 'Mild in Lima.' },
    ];
    const first = await client.responses.create({
      model: 'gemini-2.5-flash',
      input: 'Weather in Lima?',
      tools: [WEATHER],
      store: true,
    });
    const call = first.output.find((item) => item.type === 'function_call');
    expect(call).toBeDefined();
    const second = await client.responses.create({
      model: 'gemini-2.5-flash',
      tools: [WEATHER],
      previous_response_id: first.id,
      store: true,
      input: [
        {
          type: 'function_call_output',
          call_id: call?.type === 'function_call' ? call.call_id : '',
          output: 'mild',
        },
      ],
    });
    expect(second.output_text).toBe('Mild in Lima.');
    const sent = JSON.stringify(p.gemini.requests[1].body);
    expect(sent).toContain('Weather in Lima?');
    expect(sent).toContain('mild');
  });

  it.each(MODELS)('%s: responses.parse with zodTextFormat answers the JSON', async (model) => {
    const u = await newUser(t);
    const client = await clientFor(u);
    const trip = { city: 'Lisbon', days: 3 };
    server(model).reply = { json: trip };
    const before = await balance(u.user.id);
    const response = await client.responses.parse({
      model,
      input: 'Plan a trip',
      text: { format: zodTextFormat(z.object({ city: z.string(), days: z.number() }), 'trip') },
    });
    expect(response.output_parsed).toEqual(trip);
    expect(response.text?.format).toEqual(
      expect.objectContaining({ type: 'json_schema', name: 'trip' }),
    );
    const body = server(model).requests[0].body;
    // Each provider is asked for the format its own way (see the chat completions tests).
    const asked = model.startsWith('gpt')
      ? body.response_format?.json_schema?.name
      : model.startsWith('claude')
        ? body.tool_choice?.name
        : body.generationConfig?.responseMimeType;
    expect(asked).toBe(
      model.startsWith('gpt')
        ? 'trip'
        : model.startsWith('claude')
          ? 'json_answer'
          : 'application/json',
    );
    expect(await balance(u.user.id)).toBe(before - costOf(response));
  });
  it('reports cached and reasoning tokens in the usage details', async () => {
    const u = await newUser(t);
    const client = await clientFor(u);
    p.openai.reply = {
      usage: {
        prompt_tokens: 100,
        completion_tokens: 50,
        prompt_tokens_details: { cached_tokens: 64 },
        completion_tokens_details: { reasoning_tokens: 30 },
      },
    };
    const response = await client.responses.create({ model: 'gpt-5-mini', input: 'Think' });
    expect(response.usage).toEqual({
      input_tokens: 100,
      input_tokens_details: { cached_tokens: 64 },
      output_tokens: 50,
      output_tokens_details: { reasoning_tokens: 30 },
      total_tokens: 150,
    });
  });

  it('raises an upstream failure after the first token as an error event, charging what came', async () => {
    const u = await newUser(t);
    const client = await clientFor(u);
    p.openai.reply = { text: 'a b c d e f', chunks: 6, cutAfterChunks: 2 };
    const stream = client.responses.stream({ model: 'gpt-4o', input: 'Go' });
    let text = '';
    const failure = await (async () => {
      for await (const event of stream)
        if (event.type === 'response.output_text.delta') text += event.delta;
    })().catch((e: unknown) => e);
    expect(text.length).toBeGreaterThan(0);
    expect(failure).toBeInstanceOf(OpenAI.APIError);
    const holds = async () =>
      Number((await t.db.query('SELECT count(*) FROM credit_holds'))[0].count);
    expect(await waitFor(async () => (await holds()) === 0)).toBe(true);
    const [entry, ...more] = await consumptions(u.user.id);
    expect([entry < 0, more]).toEqual([true, []]);
  });
});
