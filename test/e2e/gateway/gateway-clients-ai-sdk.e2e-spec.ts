import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible, type MetadataExtractor } from '@ai-sdk/openai-compatible';
import { embed, generateText, Output, stepCountIs, streamText, tool } from 'ai';
import { z } from 'zod';
import { newUser } from '../../support/factories';
import {
  booksOf,
  chargedSince,
  type Gateway,
  keyFor,
  settledBooksOf,
  startGateway,
} from './gateway-clients.helpers';

/**
 * Our `cost` (credits) as AI SDK provider metadata. The OpenAI-compatible provider keeps only the
 * usage fields it knows; a `metadataExtractor` (a client-side provider setting) lifts `cost` from
 * the whole answer or from the stream's last chunk into `providerMetadata.ours.cost`.
 */
const costExtractor: MetadataExtractor = {
  extractMetadata: async ({ parsedBody }) => {
    const cost = (parsedBody as { cost?: number }).cost;
    return cost === undefined ? undefined : { ours: { cost } };
  },
  createStreamExtractor: () => {
    let cost: number | undefined;
    return {
      processChunk: (chunk) => {
        const c = (chunk as { cost?: number }).cost;
        if (typeof c === 'number') cost = c;
      },
      buildMetadata: () => (cost === undefined ? undefined : { ours: { cost } }),
    };
  },
};

const costIn = (meta: unknown): number => (meta as { ours: { cost: number } }).ours.cost;

/**
 * The AI SDK (`ai` 7) against /v1 with only its base URL and key changed: the OpenAI-compatible
 * provider over /v1/chat/completions (a multi-step tool loop the SDK runs, structured output,
 * streaming), embeddings over /v1/embeddings, and the `@ai-sdk/openai` provider's default
 * Responses model over /v1/responses. Each call's credits are checked against the ledger.
 */
describe('AI SDK against /v1', () => {
  let g: Gateway;
  beforeAll(async () => {
    g = await startGateway();
  });
  afterAll(() => g.close());
  beforeEach(() => g.p.reset());

  const compatible = (apiKey: string) =>
    createOpenAICompatible({
      name: 'ours',
      baseURL: g.baseURL,
      apiKey,
      includeUsage: true,
      supportsStructuredOutputs: true,
      metadataExtractor: costExtractor,
    });

  const weather = tool({
    description: 'The current weather of a city',
    inputSchema: z.object({ city: z.string() }),
    execute: async ({ city }) => ({ city, sky: 'sunny', celsius: 21 }),
  });

  it('generateText with a tool and stopWhen: stepCountIs(3): the SDK runs the tool, then answers', async () => {
    const u = await newUser(g.t);
    const { key } = await keyFor(g.t, u);
    const before = await booksOf(g.t, u.user.id);
    g.p.openai.script = [
      {
        toolCalls: [{ id: 'call_sdk_1', name: 'weather', arguments: { city: 'Lima' } }],
        usage: { prompt_tokens: 300, completion_tokens: 50 },
      },
      { text: 'Sunny, 21 °C in Lima.', usage: { prompt_tokens: 500, completion_tokens: 200 } },
    ];
    const result = await generateText({
      model: compatible(key)('gpt-4o'),
      tools: { weather },
      stopWhen: stepCountIs(3),
      prompt: 'Weather in Lima?',
    });

    expect(result.text).toBe('Sunny, 21 °C in Lima.');
    expect(result.steps).toHaveLength(2);
    expect(result.steps[0].finishReason).toBe('tool-calls');
    expect(result.steps[0].toolCalls).toEqual([
      expect.objectContaining({
        toolCallId: 'call_sdk_1',
        toolName: 'weather',
        input: { city: 'Lima' },
      }),
    ]);
    expect(result.steps[0].toolResults[0].output).toEqual({
      city: 'Lima',
      sky: 'sunny',
      celsius: 21,
    });
    expect(result.steps[1].finishReason).toBe('stop');
    expect(result.totalUsage.inputTokens).toBe(800);
    // The tool's result went upstream in the second request.
    expect(JSON.stringify(g.p.openai.requests[1].body.messages)).toContain('"sky\\":\\"sunny');
    const costs = result.steps.map((s) => costIn(s.providerMetadata));
    const charged = chargedSince(before, await settledBooksOf(g.t, u.user.id), 2);
    expect(costs[0] + costs[1]).toBe(charged);
  });

  it('streamText with tools over Anthropic: the SDK assembles the streamed call, runs it, streams the answer', async () => {
    const u = await newUser(g.t);
    const { key } = await keyFor(g.t, u);
    const before = await booksOf(g.t, u.user.id);
    g.p.anthropic.script = [
      { toolCalls: [{ id: 'toolu_sdk_1', name: 'weather', arguments: { city: 'Quito' } }] },
      { text: 'Quito is sunny today.', chunks: 3 },
    ];
    const streamed = streamText({
      model: compatible(key)('claude-haiku-4-5'),
      tools: { weather },
      stopWhen: stepCountIs(3),
      prompt: 'Weather in Quito?',
    });
    let text = '';
    for await (const delta of streamed.textStream) text += delta;
    const steps = await streamed.steps;

    expect(text).toBe('Quito is sunny today.');
    expect(steps.map((s) => s.finishReason)).toEqual(['tool-calls', 'stop']);
    expect(steps[0].toolCalls[0]).toEqual(
      expect.objectContaining({ toolCallId: 'toolu_sdk_1', input: { city: 'Quito' } }),
    );
    const charged = chargedSince(before, await settledBooksOf(g.t, u.user.id), 2);
    expect(steps.map((s) => costIn(s.providerMetadata)).reduce((a, b) => a + b)).toBe(charged);
  });

  it('generateText with Output.object(zod): the answer is parsed; the JSON schema went upstream', async () => {
    const u = await newUser(g.t);
    const { key } = await keyFor(g.t, u);
    const before = await booksOf(g.t, u.user.id);
    g.p.openai.reply = { text: JSON.stringify({ title: 'Dune', year: 1965, tags: ['sf'] }) };
    const book = z.object({ title: z.string(), year: z.number().int(), tags: z.array(z.string()) });
    const result = await generateText({
      model: compatible(key)('gpt-4o-mini'),
      output: Output.object({ schema: book, name: 'book' }),
      prompt: 'A classic novel',
    });

    expect(result.output).toEqual({ title: 'Dune', year: 1965, tags: ['sf'] });
    expect(g.p.openai.requests[0].body.response_format).toEqual(
      expect.objectContaining({
        type: 'json_schema',
        json_schema: expect.objectContaining({
          name: 'book',
          schema: expect.objectContaining({ type: 'object' }),
        }),
      }),
    );
    const charged = chargedSince(before, await settledBooksOf(g.t, u.user.id), 1);
    expect(costIn(result.providerMetadata)).toBe(charged);
  });

  it('embed over /v1/embeddings: the vector and usage come back, charged once', async () => {
    const u = await newUser(g.t);
    const { key } = await keyFor(g.t, u);
    const before = await booksOf(g.t, u.user.id);
    const result = await embed({
      model: compatible(key).embeddingModel('text-embedding-3-small'),
      value: 'I parked the automobile',
    });

    expect(result.embedding).toHaveLength(64);
    expect(result.usage.tokens).toBe(6);
    const charged = chargedSince(before, await settledBooksOf(g.t, u.user.id), 1);
    expect((result.response?.body as { cost: number }).cost).toBe(charged);
  });

  it("@ai-sdk/openai's default (Responses) model over /v1/responses: a tool loop, then a stream", async () => {
    const u = await newUser(g.t);
    const { key } = await keyFor(g.t, u);
    const before = await booksOf(g.t, u.user.id);
    const openai = createOpenAI({ baseURL: g.baseURL, apiKey: key });
    g.p.openai.script = [
      { toolCalls: [{ id: 'call_resp_1', name: 'weather', arguments: { city: 'Bern' } }] },
      { text: 'Bern: sunny, 21 °C.' },
    ];
    const result = await generateText({
      model: openai('gpt-4o'),
      tools: { weather },
      stopWhen: stepCountIs(3),
      prompt: 'Weather in Bern?',
      // Steps keep the answer's body (our `cost` in it) only when asked.
      include: { responseBody: true },
    });

    expect(result.text).toBe('Bern: sunny, 21 °C.');
    expect(result.steps.map((s) => s.finishReason)).toEqual(['tool-calls', 'stop']);
    expect(result.steps[0].toolCalls[0]).toEqual(
      expect.objectContaining({ toolName: 'weather', input: { city: 'Bern' } }),
    );
    // The function call output reached the provider as a tool message.
    expect(JSON.stringify(g.p.openai.requests[1].body.messages)).toContain('sunny');
    expect(result.totalUsage.inputTokens).toBe(20);
    const costs = result.steps.map((s) => (s.response.body as { cost: number }).cost);

    g.p.openai.reply = { text: 'one two three', chunks: 3 };
    const streamed = streamText({ model: openai.responses('gpt-4o-mini'), prompt: 'Count' });
    let text = '';
    for await (const delta of streamed.textStream) text += delta;
    expect(text).toBe('one two three');
    expect((await streamed.usage).outputTokens).toBeGreaterThan(0);

    const after = await settledBooksOf(g.t, u.user.id);
    chargedSince(before, after, 3);
    // The two calls of the tool loop cost what their answers said (the stream is the third).
    const loop = after.consumptions.slice(-3, -1).map((e) => -e.amount);
    expect(loop).toEqual(costs);
  });
});
