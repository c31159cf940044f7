import { buildAiConfig } from '../../../src/ai/ai.config';
import { AnthropicProvider } from '../../../src/ai/providers/anthropic.provider';
import { GoogleProvider } from '../../../src/ai/providers/google.provider';
import type {
  GenerateRequest,
  ModelProvider,
  StreamChunk,
} from '../../../src/ai/providers/model-provider';
import { OpenAiProvider } from '../../../src/ai/providers/openai.provider';
import { buildSharedConfig, type SharedConfig } from '../../../src/config/shared.config';
import { AnthropicTestServer } from '../../servers/anthropic-server';
import { GeminiTestServer } from '../../servers/gemini-server';
import { OpenAiTestServer } from '../../servers/openai-server';

// Each adapter's mapping of the client's tool rules and answer formats, through the real SDK
// against a local server speaking its provider's wire protocol.
const openai = new OpenAiTestServer();
const anthropic = new AnthropicTestServer();
const gemini = new GeminiTestServer();
/** The shared slice: every provider's key and its local server as base URL. */
const config = (): SharedConfig =>
  buildSharedConfig({
    OPENAI_API_KEY: 'k',
    OPENAI_BASE_URL: openai.url,
    ANTHROPIC_API_KEY: 'k',
    ANTHROPIC_BASE_URL: anthropic.url,
    GEMINI_API_KEY: 'k',
    GEMINI_BASE_URL: gemini.url,
  });
/** The ai slice's defaults (no prompt caching). */
const AI = buildAiConfig({});

const lookup = {
  name: 'lookup',
  description: 'Looks a word up',
  parameters: { type: 'object', properties: { q: { type: 'string' } } },
};
const schema = { type: 'object', properties: { answer: { type: 'string' } }, required: ['answer'] };
const request = (extra: Partial<GenerateRequest>): GenerateRequest => ({
  model: 'm',
  messages: [{ role: 'user', content: 'Hi' }],
  maxTokens: 100,
  ...extra,
});
async function collect(stream: AsyncIterable<StreamChunk>): Promise<StreamChunk[]> {
  const chunks: StreamChunk[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return chunks;
}
const calls = [
  { id: 'c1', name: 'lookup', arguments: { q: 'a' } },
  { id: 'c2', name: 'lookup', arguments: { q: 'b' } },
];

beforeAll(async () => {
  await Promise.all([openai.start(), anthropic.start(), gemini.start()]);
});
afterAll(async () => {
  await Promise.all([openai.stop(), anthropic.stop(), gemini.stop()]);
});
beforeEach(() => [openai, anthropic, gemini].forEach((s) => s.reset()));

describe('client tool rules, per provider', () => {
  const withRules = (toolChoice: 'none' | { name: string }, parallelToolCalls = false) =>
    request({ tools: [lookup], clientTools: { tools: [lookup], toolChoice, parallelToolCalls } });

  it('OpenAI: tool_choice and parallel_tool_calls as sent; finish_reason tool_calls', async () => {
    openai.reply = { toolCalls: calls };
    const p: ModelProvider = new OpenAiProvider(config());
    const result = await p.generate(withRules({ name: 'lookup' }));
    expect(openai.requests[0].body).toEqual(
      expect.objectContaining({
        tool_choice: { type: 'function', function: { name: 'lookup' } },
        parallel_tool_calls: false,
      }),
    );
    expect(result.finishReason).toBe('tool_calls');
    const chunks = await collect(p.stream(withRules('none')));
    expect(openai.requests[1].body.tool_choice).toBe('none');
    expect(chunks.filter((c) => c.finishReason).map((c) => c.finishReason)).toEqual(['tool_calls']);
  });

  it('Anthropic: tool_choice tool / none, disable_parallel_tool_use', async () => {
    anthropic.reply = { toolCalls: calls };
    const p: ModelProvider = new AnthropicProvider(config(), AI);
    const result = await p.generate(withRules({ name: 'lookup' }));
    expect(anthropic.requests[0].body.tool_choice).toEqual({
      type: 'tool',
      name: 'lookup',
      disable_parallel_tool_use: true,
    });
    expect(result).toEqual(
      expect.objectContaining({ toolCalls: calls, finishReason: 'tool_calls' }),
    );
    await p.generate(withRules('none', true));
    expect(anthropic.requests[1].body.tool_choice).toEqual({ type: 'none' });
    // Extended thinking refuses a forced tool: the choice is sent as auto.
    await p.generate({ ...withRules({ name: 'lookup' }), reasoningBudget: 1024 });
    expect(anthropic.requests[2].body.tool_choice).toEqual({
      type: 'auto',
      disable_parallel_tool_use: true,
    });
  });

  it('Gemini: functionCallingConfig ANY with the allowed name; one call when not parallel', async () => {
    gemini.reply = { toolCalls: calls };
    const p: ModelProvider = new GoogleProvider(config());
    const result = await p.generate(withRules({ name: 'lookup' }));
    expect(gemini.requests[0].body.toolConfig).toEqual({
      functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['lookup'] },
    });
    expect(result.toolCalls).toEqual([calls[0]]);
    const chunks = await collect(p.stream(withRules('none')));
    expect(gemini.requests[1].body.toolConfig.functionCallingConfig.mode).toBe('NONE');
    expect(chunks.flatMap((c) => (c.toolCall ? [c.toolCall] : []))).toEqual([calls[0]]);
    expect(chunks.find((c) => c.finishReason)?.finishReason).toBe('tool_calls');
  });
});

describe('JSON answers, per provider', () => {
  const json = { answer: 'yes' };
  const format = { type: 'json_schema' as const, name: 'reply', schema, strict: true };

  it('OpenAI: response_format json_schema and json_object', async () => {
    openai.reply = { json };
    const p = new OpenAiProvider(config());
    expect((await p.generate(request({ responseFormat: format }))).text).toBe('{"answer":"yes"}');
    expect(openai.requests[0].body.response_format).toEqual({
      type: 'json_schema',
      json_schema: { name: 'reply', schema, strict: true },
    });
    await p.generate(request({ responseFormat: { type: 'json_object' } }));
    expect(openai.requests[1].body.response_format).toEqual({ type: 'json_object' });
  });

  it('Anthropic: the forced answer tool, its input returned as text (whole and streamed)', async () => {
    anthropic.reply = { json };
    const p = new AnthropicProvider(config(), AI);
    const whole = await p.generate(request({ responseFormat: format }));
    expect(whole).toEqual(
      expect.objectContaining({ text: '{"answer":"yes"}', finishReason: 'stop' }),
    );
    expect(whole.toolCalls).toBeUndefined();
    expect(anthropic.requests[0].body.tools).toEqual([
      expect.objectContaining({ name: 'json_answer', input_schema: schema }),
    ]);
    const chunks = await collect(p.stream(request({ responseFormat: format })));
    expect(chunks.map((c) => c.text ?? '').join('')).toBe('{"answer":"yes"}');
    expect(chunks.some((c) => c.toolCall)).toBe(false);
    expect(chunks.find((c) => c.finishReason)?.finishReason).toBe('stop');
  });

  it('Gemini: responseMimeType application/json with the schema', async () => {
    gemini.reply = { json };
    const p = new GoogleProvider(config());
    expect((await p.generate(request({ responseFormat: format }))).text).toBe('{"answer":"yes"}');
    expect(gemini.requests[0].body.generationConfig).toEqual(
      expect.objectContaining({ responseMimeType: 'application/json', responseJsonSchema: schema }),
    );
  });
});
