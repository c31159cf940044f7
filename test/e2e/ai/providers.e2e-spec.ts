import { buildAiConfig } from '../../../src/ai/ai.config';
import { AnthropicProvider } from '../../../src/ai/providers/anthropic.provider';
import { GoogleProvider } from '../../../src/ai/providers/google.provider';
import {
  type GenerateRequest,
  type ModelProvider,
  ProviderError,
  type StreamChunk,
} from '../../../src/ai/providers/model-provider';
import { OpenAiProvider } from '../../../src/ai/providers/openai.provider';
import { buildSharedConfig, type SharedConfig } from '../../../src/config/shared.config';
import { AnthropicTestServer } from '../../servers/anthropic-server';
import { GeminiTestServer } from '../../servers/gemini-server';
import { OpenAiTestServer } from '../../servers/openai-server';
import type { WireReply, WireTestServer } from '../../servers/wire-server';
import { waitFor } from '../../support/wait';

// Each adapter against a local server speaking its provider's wire protocol, through the real SDK.
const KEY = 'sk-local-provider-key';
const openai = new OpenAiTestServer();
const anthropic = new AnthropicTestServer();
const gemini = new GeminiTestServer();

/** The shared slice: every provider's key (`apiKey`) and its local server as base URL. */
function config(apiKey: string | undefined): SharedConfig {
  return buildSharedConfig({
    OPENAI_API_KEY: apiKey,
    OPENAI_BASE_URL: openai.url,
    ANTHROPIC_API_KEY: apiKey,
    ANTHROPIC_BASE_URL: anthropic.url,
    GEMINI_API_KEY: apiKey,
    GEMINI_BASE_URL: gemini.url,
  });
}
/** The ai slice's defaults (no prompt caching). */
const AI = buildAiConfig({});

interface Case {
  name: string;
  server: WireTestServer<WireReply>;
  make: (c: SharedConfig) => ModelProvider;
  model: string;
  /** Server-side usage giving 1000 prompt and 500 completion tokens. */
  usage: object;
}

const cases: Case[] = [
  {
    name: 'OpenAI',
    server: openai,
    make: (c) => new OpenAiProvider(c),
    model: 'gpt-4o-mini',
    usage: { prompt_tokens: 1000, completion_tokens: 500 },
  },
  {
    name: 'Anthropic',
    server: anthropic,
    make: (c) => new AnthropicProvider(c, AI),
    model: 'claude-haiku-4-5',
    usage: { input_tokens: 1000, output_tokens: 500 },
  },
  {
    name: 'Gemini',
    server: gemini,
    make: (c) => new GoogleProvider(c),
    model: 'gemini-2.5-flash',
    usage: { promptTokenCount: 1000, candidatesTokenCount: 500 },
  },
];

const request = (model: string, extra: Partial<GenerateRequest> = {}): GenerateRequest => ({
  model,
  messages: [
    { role: 'system', content: 'Be brief.' },
    { role: 'user', content: 'Say hello' },
    { role: 'assistant', content: 'Hello?' },
    { role: 'user', content: 'Again' },
  ],
  maxTokens: 1000,
  ...extra,
});

async function collect(stream: AsyncIterable<StreamChunk>): Promise<StreamChunk[]> {
  const chunks: StreamChunk[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return chunks;
}

const textOf = (chunks: StreamChunk[]) => chunks.map((c) => c.text ?? '').join('');
const lastUsage = (chunks: StreamChunk[]) => chunks.filter((c) => c.usage).at(-1)?.usage;

async function rejection(promise: Promise<unknown>): Promise<ProviderError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ProviderError);
  return err as ProviderError;
}

beforeAll(async () => {
  await Promise.all([openai.start(), anthropic.start(), gemini.start()]);
});
afterAll(async () => {
  await Promise.all([openai.stop(), anthropic.stop(), gemini.stop()]);
});
beforeEach(() => [openai, anthropic, gemini].forEach((s) => s.reset()));

describe.each(cases)('$name adapter', ({ server, make, model, usage, name }) => {
  const provider = () => make(config(KEY));

  it('generates a whole reply with the exact usage', async () => {
    server.reply = { text: 'Hi there!', usage } as WireReply;
    const result = await provider().generate(request(model));
    expect(result).toEqual({
      text: 'Hi there!',
      usage: { promptTokens: 1000, completionTokens: 500 },
      finishReason: 'stop',
    });
    expect(server.requests).toHaveLength(1);
  });

  // Tool calls in both directions, normalised to {id, name, arguments}.
  const weather = {
    name: 'get_weather',
    description: 'The weather in a city',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  };
  const calls = [
    { id: 'call_a', name: 'get_weather', arguments: { city: 'Lisbon' } },
    { id: 'call_b', name: 'get_weather', arguments: { city: '東京', days: [1, 2] } },
  ];
  it.each(['generate', 'stream'] as const)(
    '%s: returns the tool calls the model asks for, in order, with their arguments',
    async (mode) => {
      server.reply = { text: 'Checking.', toolCalls: calls, usage } as WireReply;
      const req = request(model, { tools: [weather] });
      const got =
        mode === 'generate'
          ? ((await provider().generate(req)).toolCalls ?? [])
          : (await collect(provider().stream(req))).flatMap((c) =>
              c.toolCall ? [c.toolCall] : [],
            );
      // Gemini sends the ids it was given (our server echoes them); none would get one of ours.
      expect(got).toEqual(calls);
    },
  );

  it('sends tool results back after the calls, in the wire shape of the provider', async () => {
    server.reply = { text: 'Sunny.', usage } as WireReply;
    await provider().generate({
      model,
      maxTokens: 100,
      tools: [weather],
      messages: [
        { role: 'user', content: 'Weather?' },
        { role: 'assistant', content: '', toolCalls: calls },
        {
          role: 'tool',
          content: '21 °C',
          toolCall: { id: 'call_a', name: 'get_weather', ok: true },
        },
        {
          role: 'tool',
          content: 'no data',
          toolCall: { id: 'call_b', name: 'get_weather', ok: false },
        },
      ],
    });
    const body = server.requests[0].body;
    const wire = JSON.stringify(body);
    for (const text of ['21 °C', 'no data', 'call_a', 'call_b', 'Lisbon'])
      expect(wire).toContain(text);
    if (name === 'OpenAI') {
      expect(body.messages.slice(2)).toEqual([
        { role: 'tool', tool_call_id: 'call_a', content: '21 °C' },
        { role: 'tool', tool_call_id: 'call_b', content: 'no data' },
      ]);
    } else if (name === 'Anthropic') {
      // Both results in one user message, the failed one marked as an error.
      expect(body.messages[2]).toEqual({
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'call_a', content: '21 °C' },
          { type: 'tool_result', tool_use_id: 'call_b', content: 'no data', is_error: true },
        ],
      });
    } else {
      expect(body.contents[2].parts).toEqual([
        { functionResponse: { id: 'call_a', name: 'get_weather', response: { output: '21 °C' } } },
        { functionResponse: { id: 'call_b', name: 'get_weather', response: { error: 'no data' } } },
      ]);
    }
  });

  it('streams text chunks, then the exact usage', async () => {
    server.reply = { text: 'One, two, three, four.', chunks: 4, usage } as WireReply;
    const chunks = await collect(provider().stream(request(model)));
    expect(chunks.filter((c) => c.text)).toHaveLength(4);
    expect(textOf(chunks)).toBe('One, two, three, four.');
    expect(lastUsage(chunks)).toEqual({ promptTokens: 1000, completionTokens: 500 });
    expect(chunks.at(-1)?.usage).toBeDefined();
  });

  it.each([401, 429, 500])('turns an upstream %i into ProviderError, once', async (status) => {
    server.reply = { status };
    for (const call of [
      () => provider().generate(request(model)),
      () => provider().stream(request(model))[Symbol.asyncIterator]().next(),
    ]) {
      const err = await rejection(call());
      expect(err).toMatchObject({ upstreamStatus: status, aborted: false });
      expect(err.retryAfterMs).toBe(status === 429 ? 2000 : undefined);
      expect(err.message).not.toContain(KEY);
      expect(err.message).not.toMatch(/rate limit|server had an error|api key|exhausted|internal/i);
    }
    expect(server.requests).toHaveLength(2); // no SDK retries
  });

  it('aborts mid-stream: the adapter throws aborted without waiting for a next chunk, the server sees it', async () => {
    // The upstream goes silent after the first chunk: only the abort can end the wait.
    server.reply = { text: 'a b c d e f g h i j', chunks: 10, stallAfterChunks: 1 };
    const controller = new AbortController();
    const it = provider()
      .stream(request(model, { signal: controller.signal }))
      [Symbol.asyncIterator]();
    const first = await it.next();
    expect(first.value.text).toBeTruthy();
    controller.abort();
    const err = await rejection(it.next());
    expect(err).toMatchObject({ aborted: true, upstreamStatus: undefined });
    expect(await waitFor(() => server.requests[0]?.aborted === true)).toBe(true);
  });

  it.each([0, 2])(
    'fails a stream whose connection breaks after %i chunks (not an abort, not retried)',
    async (cutAfterChunks) => {
      server.reply = { text: 'a b c d e f', chunks: 6, cutAfterChunks };
      const received: StreamChunk[] = [];
      const err = await rejection(
        (async () => {
          for await (const chunk of provider().stream(request(model))) received.push(chunk);
        })(),
      );
      expect(err).toMatchObject({ aborted: false, upstreamStatus: undefined });
      expect(received.filter((c) => c.text)).toHaveLength(cutAfterChunks);
      expect(server.requests).toHaveLength(1);
      expect(server.requests[0].aborted).toBe(false);
    },
  );

  it('throws aborted from the first next() when the signal is already aborted', async () => {
    const signal = AbortSignal.abort();
    const it = provider().stream(request(model, { signal }))[Symbol.asyncIterator]();
    expect(await rejection(it.next())).toMatchObject({ aborted: true });
    expect(await rejection(provider().generate(request(model, { signal })))).toMatchObject({
      aborted: true,
    });
  });

  it('is refused without an API key, before any request', async () => {
    const unconfigured = make(config(undefined));
    const message = `${name} is not configured`;
    await expect(unconfigured.generate(request(model))).rejects.toMatchObject({ message });
    const it = unconfigured.stream(request(model))[Symbol.asyncIterator]();
    await expect(it.next()).rejects.toMatchObject({ message, upstreamStatus: undefined });
    expect(server.requests).toHaveLength(0);
  });
});

describe('OpenAI wire details', () => {
  it('sends the sampling fields, stream_options.include_usage and the key', async () => {
    await collect(
      new OpenAiProvider(config(KEY)).stream(request('gpt-4o', { temperature: 0.3, topP: 0.9 })),
    );
    const sent = openai.requests[0];
    expect(sent.path).toBe('/v1/chat/completions');
    expect(sent.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(sent.body).toEqual(
      expect.objectContaining({
        model: 'gpt-4o',
        stream: true,
        stream_options: { include_usage: true },
        max_tokens: 1000,
        temperature: 0.3,
        top_p: 0.9,
        messages: request('gpt-4o').messages,
      }),
    );
  });

  it('estimates ceil(chars / 4) when a compatible server sends no usage', async () => {
    openai.reply = { text: '12345678', usage: null };
    const provider = new OpenAiProvider(config(KEY));
    // Prompt: "Be brief." + "Say hello" + "Hello?" + "Again" = 29 characters -> 8 tokens.
    const expected = { promptTokens: 8, completionTokens: 2 };
    expect((await provider.generate(request('gpt-4o'))).usage).toEqual(expected);
    expect(lastUsage(await collect(provider.stream(request('gpt-4o'))))).toEqual(expected);
  });
});

describe('Anthropic wire details', () => {
  it('sends system messages as the top-level system param, with the key', async () => {
    await new AnthropicProvider(config(KEY), AI).generate(request('claude-haiku-4-5'));
    const sent = anthropic.requests[0];
    expect(sent.path).toBe('/v1/messages');
    expect(sent.headers.authorization).toBe(`Bearer ${KEY}`); // SDK 1.12: not x-api-key
    expect(sent.body).toEqual({
      model: 'claude-haiku-4-5',
      max_tokens: 1000,
      stream: false,
      system: 'Be brief.',
      messages: [
        { role: 'user', content: 'Say hello' },
        { role: 'assistant', content: 'Hello?' },
        { role: 'user', content: 'Again' },
      ],
    });
  });

  it('the local server also accepts x-api-key', async () => {
    const res = await fetch(`${anthropic.url}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': KEY, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'claude-x', max_tokens: 10, messages: [] }),
    });
    expect(res.status).toBe(200);
  });

  it('charges the LAST cumulative message_delta output_tokens, never their sum', async () => {
    anthropic.reply = {
      usage: { input_tokens: 30, output_tokens: 20 },
      outputTokenSteps: [5, 12, 20],
    };
    const chunks = await collect(
      new AnthropicProvider(config(KEY), AI).stream(request('claude-x')),
    );
    const usages = chunks.flatMap((c) => (c.usage ? [c.usage.completionTokens] : []));
    expect(usages).toEqual([5, 12, 20]); // message_start's output_tokens (1) is not added either
    expect(lastUsage(chunks)).toEqual({ promptTokens: 30, completionTokens: 20 });
  });
});

describe('Gemini wire details', () => {
  it('calls :streamGenerateContent?alt=sse with x-goog-api-key and the mapped request', async () => {
    await collect(
      new GoogleProvider(config(KEY)).stream(
        request('gemini-2.5-flash', { temperature: 0.5, topP: 1 }),
      ),
    );
    const sent = gemini.requests[0];
    expect(sent.path).toBe('/v1/models/gemini-2.5-flash:streamGenerateContent?alt=sse');
    expect(sent.headers['x-goog-api-key']).toBe(KEY);
    expect(sent.body).toEqual({
      contents: [
        { role: 'user', parts: [{ text: 'Say hello' }] },
        { role: 'model', parts: [{ text: 'Hello?' }] },
        { role: 'user', parts: [{ text: 'Again' }] },
      ],
      systemInstruction: { parts: [{ text: 'Be brief.' }], role: 'user' },
      generationConfig: { maxOutputTokens: 1000, temperature: 0.5, topP: 1 },
    });
  });

  it('counts thoughtsTokenCount as completion tokens', async () => {
    gemini.reply = {
      usage: { promptTokenCount: 12, candidatesTokenCount: 30, thoughtsTokenCount: 100 },
    };
    const chunks = await collect(new GoogleProvider(config(KEY)).stream(request('gemini-2.5-pro')));
    expect(lastUsage(chunks)).toEqual({
      promptTokens: 12,
      completionTokens: 130,
      reasoningTokens: 100,
    });
  });

  it("reads a 429's RetryInfo.retryDelay when no Retry-After header is sent", async () => {
    gemini.reply = { status: 429, retryAfter: '', retryDelay: '7s' };
    const err = await rejection(
      new GoogleProvider(config(KEY)).generate(request('gemini-2.5-pro')),
    );
    expect(err).toMatchObject({ upstreamStatus: 429, retryAfterMs: 7000 });
  });
});
