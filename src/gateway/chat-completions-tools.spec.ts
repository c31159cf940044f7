import { toGenerateDto } from './chat-completions.mapper';
import { clientToolsOf, responseFormatOf } from './chat-completions-tools';
import type { ChatCompletionRequestDto } from './dto/chat-completion.dto';

const req = (extra: object): ChatCompletionRequestDto =>
  ({
    model: 'gpt-4o',
    messages: [{ role: 'user', content: 'Hi' }],
    ...extra,
  }) as ChatCompletionRequestDto;
const lookup = { type: 'function', function: { name: 'lookup' } };

describe('Chat Completions tools in', () => {
  it('maps tools with an empty-object schema by default, the choice and the parallel rule', () => {
    expect(
      clientToolsOf(
        req({
          tools: [lookup],
          tool_choice: { type: 'function', function: { name: 'lookup' } },
          parallel_tool_calls: false,
        }),
      ),
    ).toEqual({
      tools: [{ name: 'lookup', description: '', parameters: { type: 'object', properties: {} } }],
      toolChoice: { name: 'lookup' },
      parallelToolCalls: false,
    });
    expect(clientToolsOf(req({ tool_choice: 'none' }))).toBeUndefined();
  });

  it('refuses a choice naming no tool, a choice without tools and twice the same name', () => {
    const named = { type: 'function', function: { name: 'other' } };
    expect(() => clientToolsOf(req({ tools: [lookup], tool_choice: named }))).toThrow(
      /not in tools/,
    );
    expect(() => clientToolsOf(req({ tool_choice: 'required' }))).toThrow(/needs tools/);
    expect(() => clientToolsOf(req({ tools: [lookup, lookup] }))).toThrow(/distinct/);
  });

  it('maps response_format: text is none, json_object, json_schema with strict', () => {
    expect(responseFormatOf(req({ response_format: { type: 'text' } }))).toBeUndefined();
    expect(responseFormatOf(req({ response_format: { type: 'json_object' } }))).toEqual({
      type: 'json_object',
    });
    const schema = { type: 'object', properties: {} };
    expect(
      responseFormatOf(
        req({
          response_format: {
            type: 'json_schema',
            json_schema: { name: 'r', schema, strict: true },
          },
        }),
      ),
    ).toEqual({ type: 'json_schema', name: 'r', schema, strict: true });
    expect(() => responseFormatOf(req({ response_format: { type: 'xml' } }))).toThrow();
    expect(() =>
      responseFormatOf(
        req({ response_format: { type: 'json_schema', json_schema: { name: 'a b' } } }),
      ),
    ).toThrow();
  });

  it('maps assistant tool_calls and tool results, the name looked up by call id', () => {
    const dto = toGenerateDto(
      req({
        messages: [
          { role: 'user', content: 'Hi' },
          {
            role: 'assistant',
            content: null,
            tool_calls: [
              { id: 'c1', type: 'function', function: { name: 'lookup', arguments: '{"q":1}' } },
            ],
          },
          { role: 'tool', tool_call_id: 'c1', content: [{ type: 'text', text: 'found' }] },
        ],
      }),
    );
    expect(dto.messages.slice(1)).toEqual([
      {
        role: 'assistant',
        content: '',
        toolCalls: [{ id: 'c1', name: 'lookup', arguments: { q: 1 } }],
      },
      { role: 'tool', toolCallId: 'c1', toolName: 'lookup', content: 'found' },
    ]);
    expect(() =>
      toGenerateDto(req({ messages: [{ role: 'tool', tool_call_id: 'c9', content: 'x' }] })),
    ).toThrow(/answers no earlier/);
  });
});
