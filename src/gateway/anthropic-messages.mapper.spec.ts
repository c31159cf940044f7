import { AppError } from '../common/errors/app-error';
import { ValidationFailedError } from '../common/validation/validation.pipe';
import { anthropicMessageOf, stopReasonOf } from './anthropic-message.mapper';
import { clientToolsOf, toWireGenerateDto } from './anthropic-messages.mapper';
import type { MessagesRequestDto } from './dto/messages-request.dto';

const req = (over: Partial<MessagesRequestDto>): MessagesRequestDto => ({
  model: 'claude-haiku-4-5',
  max_tokens: 100,
  messages: [{ role: 'user', content: 'Hi' }],
  ...over,
});

/** The error a call throws, and the field it names. */
function refusal(run: () => unknown): { kind: string; field: unknown } {
  try {
    run();
  } catch (err) {
    if (err instanceof ValidationFailedError)
      return { kind: 'validation', field: err.violations[0].property };
    if (err instanceof AppError) return { kind: err.code, field: err.details?.param };
    throw err;
  }
  throw new Error('did not throw');
}

describe('Anthropic Messages request → ours', () => {
  it('sends system (string or text blocks) first, then the turns, with the parameters', () => {
    const dto = toWireGenerateDto(
      req({
        system: [
          { type: 'text', text: 'Be ', cache_control: { type: 'ephemeral' } },
          { type: 'text', text: 'brief.' },
        ],
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'Say ' },
              { type: 'text', text: 'hello' },
            ],
          },
          { role: 'assistant', content: 'Hello' },
          { role: 'user', content: 'Again' },
        ],
        temperature: 0.5,
        top_p: 0.9,
        stop_sequences: ['END'],
      }),
    );
    expect(dto).toEqual({
      modelId: 'claude-haiku-4-5',
      maxTokens: 100,
      temperature: 0.5,
      topP: 0.9,
      stop: ['END'],
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Say hello' },
        { role: 'assistant', content: 'Hello' },
        { role: 'user', content: 'Again' },
      ],
    });
  });

  it('maps image blocks: base64 as a data URL, a url source as is', () => {
    const dto = toWireGenerateDto(
      req({
        messages: [
          {
            role: 'user',
            content: [
              { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBO' } },
              { type: 'image', source: { type: 'url', url: '/uploads/a.png' } },
              { type: 'text', text: 'What is this?' },
            ],
          },
        ],
      }),
    );
    expect(dto.messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'image', url: 'data:image/png;base64,iVBO' },
          { type: 'image', url: '/uploads/a.png' },
          { type: 'text', text: 'What is this?' },
        ],
      },
    ]);
  });

  it('maps tool_use to tool calls and tool_result to tool messages named after their call', () => {
    const dto = toWireGenerateDto(
      req({
        messages: [
          { role: 'user', content: 'Weather in Paris?' },
          {
            role: 'assistant',
            content: [
              { type: 'thinking', thinking: '…', signature: 's' },
              { type: 'text', text: 'Let me look.' },
              { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Paris' } },
            ],
          },
          {
            role: 'user',
            content: [
              {
                type: 'tool_result',
                tool_use_id: 'toolu_1',
                content: [{ type: 'text', text: '18°C' }],
              },
              { type: 'text', text: 'Thanks' },
            ],
          },
        ],
      }),
    );
    expect(dto.messages.slice(1)).toEqual([
      {
        role: 'assistant',
        content: 'Let me look.',
        toolCalls: [{ id: 'toolu_1', name: 'get_weather', arguments: { city: 'Paris' } }],
      },
      { role: 'tool', toolCallId: 'toolu_1', toolName: 'get_weather', content: '18°C' },
      { role: 'user', content: 'Thanks' },
    ]);
    const failed = toWireGenerateDto(
      req({
        messages: [
          { role: 'assistant', content: [{ type: 'tool_use', id: 't', name: 'f', input: {} }] },
          {
            role: 'user',
            content: [{ type: 'tool_result', tool_use_id: 't', content: 'boom', is_error: true }],
          },
        ],
      }),
    );
    expect(failed.messages).toEqual([
      { role: 'assistant', content: '', toolCalls: [{ id: 't', name: 'f', arguments: {} }] },
      { role: 'tool', toolCallId: 't', toolName: 'f', content: 'boom', isError: true },
    ]);
  });

  it('refuses bad input naming the field', () => {
    expect(refusal(() => toWireGenerateDto(req({ top_k: 5 })))).toEqual({
      kind: 'UNSUPPORTED_PARAMETER',
      field: 'top_k',
    });
    expect(
      refusal(() => toWireGenerateDto(req({ messages: [{ role: 'user', content: '' }] }))),
    ).toEqual({
      kind: 'validation',
      field: 'messages[0].content',
    });
    expect(
      refusal(() =>
        toWireGenerateDto(
          req({ messages: [{ role: 'user', content: [{ type: 'document', source: {} }] }] }),
        ),
      ),
    ).toEqual({ kind: 'UNSUPPORTED_PARAMETER', field: 'messages[0].content[0].type' });
    expect(
      refusal(() =>
        toWireGenerateDto(
          req({
            messages: [
              {
                role: 'user',
                content: [{ type: 'tool_result', tool_use_id: 'nope', content: 'x' }],
              },
            ],
          }),
        ),
      ),
    ).toEqual({ kind: 'validation', field: 'messages[0].content[0].tool_use_id' });
    expect(
      refusal(() =>
        toWireGenerateDto(
          req({
            messages: [{ role: 'user', content: [{ type: 'image', source: { type: 'file' } }] }],
          }),
        ),
      ),
    ).toEqual({ kind: 'validation', field: 'messages[0].content[0].source' });
    expect(
      refusal(() => toWireGenerateDto(req({ stop_sequences: ['a', 'b', 'c', 'd', 'e'] }))),
    ).toEqual({
      kind: 'validation',
      field: 'stop_sequences',
    });
    expect(
      refusal(() => toWireGenerateDto(req({ thinking: { type: 'enabled', budget_tokens: 10 } }))),
    ).toEqual({
      kind: 'validation',
      field: 'thinking',
    });
  });
});

describe('Anthropic tools → client tools', () => {
  const weather = {
    name: 'get_weather',
    description: 'Weather',
    input_schema: { type: 'object', properties: {} },
  };

  it('maps tools and each tool_choice', () => {
    expect(clientToolsOf(req({}))).toBeUndefined();
    expect(clientToolsOf(req({ tools: [weather] }))).toEqual({
      tools: [{ name: 'get_weather', description: 'Weather', parameters: weather.input_schema }],
    });
    const choice = (tool_choice: Record<string, unknown>) =>
      clientToolsOf(req({ tools: [weather], tool_choice }));
    expect(choice({ type: 'auto' })?.toolChoice).toBe('auto');
    expect(choice({ type: 'none' })?.toolChoice).toBe('none');
    expect(choice({ type: 'any' })?.toolChoice).toBe('required');
    expect(choice({ type: 'tool', name: 'get_weather' })?.toolChoice).toEqual({
      name: 'get_weather',
    });
    expect(choice({ type: 'auto', disable_parallel_tool_use: true })?.parallelToolCalls).toBe(
      false,
    );
  });

  it('refuses server tools, bad schemas and a tool_choice naming no tool', () => {
    expect(
      refusal(() =>
        clientToolsOf(req({ tools: [{ type: 'web_search_20250305', name: 'web_search' }] })),
      ),
    ).toEqual({
      kind: 'UNSUPPORTED_PARAMETER',
      field: 'tools[0].type',
    });
    expect(
      refusal(() =>
        clientToolsOf(req({ tools: [{ name: 'f', input_schema: { type: 'string' } }] })),
      ),
    ).toEqual({
      kind: 'validation',
      field: 'tools[0].input_schema',
    });
    expect(
      refusal(() =>
        clientToolsOf(req({ tools: [weather], tool_choice: { type: 'tool', name: 'x' } })),
      ),
    ).toEqual({
      kind: 'validation',
      field: 'tool_choice.name',
    });
    expect(refusal(() => clientToolsOf(req({ tool_choice: { type: 'any' } })))).toEqual({
      kind: 'validation',
      field: 'tool_choice',
    });
  });
});

describe('our result → Anthropic message', () => {
  it('maps each finish reason to its stop_reason', () => {
    expect(stopReasonOf('stop')).toBe('end_turn');
    expect(stopReasonOf('length')).toBe('max_tokens');
    expect(stopReasonOf('tool_calls')).toBe('tool_use');
  });

  it('holds a text block, then a tool_use block per call, usage with cached tokens, and cost', () => {
    const message = anthropicMessageOf('gpt-4o', {
      text: 'Checking.',
      toolCalls: [{ id: 'call_1', name: 'get_weather', arguments: { city: 'Paris' } }],
      finishReason: 'tool_calls',
      usage: { promptTokens: 10, completionTokens: 5, cachedTokens: 4 },
      cost: 2,
    });
    expect(message).toEqual({
      id: expect.stringMatching(/^msg_[0-9a-f]{32}$/),
      type: 'message',
      role: 'assistant',
      model: 'gpt-4o',
      content: [
        { type: 'text', text: 'Checking.' },
        { type: 'tool_use', id: 'call_1', name: 'get_weather', input: { city: 'Paris' } },
      ],
      stop_reason: 'tool_use',
      stop_sequence: null,
      // As Anthropic counts them: input_tokens leave out the 4 read from the cache.
      usage: { input_tokens: 6, output_tokens: 5, cache_read_input_tokens: 4 },
      cost: 2,
    });
  });

  it('reports cache writes beside the reads, input_tokens being the rest of the prompt', () => {
    const message = anthropicMessageOf('claude-haiku-4-5', {
      text: 'Hi',
      finishReason: 'stop',
      usage: { promptTokens: 100, completionTokens: 5, cachedTokens: 60, cacheWriteTokens: 30 },
      cost: 1,
    });
    expect(message.usage).toEqual({
      input_tokens: 10,
      output_tokens: 5,
      cache_read_input_tokens: 60,
      cache_creation_input_tokens: 30,
    });
  });
});
