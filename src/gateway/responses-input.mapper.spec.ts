import { AppError, CommonErrorCode } from '../common/errors/app-error';
import { ModelsErrorCode } from '../models/models.errors';
import { ValidationFailedError } from '../common/validation/validation.pipe';
import type { ResponseCreateDto } from './dto/responses.dto';
import { toResponseCall } from './responses-input.mapper';

const req = (fields: Partial<ResponseCreateDto>): ResponseCreateDto =>
  ({ model: 'gpt-4o', input: 'Hi', ...fields }) as ResponseCreateDto;

/** [code, param] of the error `fn` throws. */
const refusal = (fn: () => unknown): [string, unknown] => {
  try {
    fn();
  } catch (err) {
    if (err instanceof ValidationFailedError)
      return [CommonErrorCode.VALIDATION_FAILED, err.violations[0]?.property];
    if (err instanceof AppError) return [err.code, err.details?.param];
    throw err;
  }
  throw new Error('no refusal');
};

describe('toResponseCall', () => {
  it('takes a string input as one user message, instructions as a system message first', () => {
    const call = toResponseCall(
      req({ instructions: 'Be brief.', max_output_tokens: 50, temperature: 0.5 }),
    );
    expect(call.dto).toEqual({
      modelId: 'gpt-4o',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Hi' },
      ],
      maxTokens: 50,
      temperature: 0.5,
      topP: undefined,
    });
    expect(call.items).toEqual([{ type: 'message', role: 'user', content: 'Hi' }]);
    expect(call.outputLimits).toEqual({ by: 'plan', param: 'max_output_tokens' });
    expect(call.clientTools).toBeUndefined();
  });

  it('maps message parts, developer messages, function calls and their outputs', () => {
    const call = toResponseCall(
      req({
        input: [
          { role: 'developer', content: 'Use tools.' },
          {
            type: 'message',
            role: 'user',
            content: [
              { type: 'input_text', text: 'What is ' },
              { type: 'input_text', text: 'this?' },
              { type: 'input_image', image_url: 'data:image/png;base64,AAAA' },
            ],
          },
          { role: 'assistant', content: [{ type: 'output_text', text: 'Let me look.' }] },
          { type: 'function_call', call_id: 'c1', name: 'look', arguments: '{"q":1}' },
          { type: 'function_call', call_id: 'c2', name: 'find', arguments: '{}' },
          { type: 'function_call_output', call_id: 'c1', output: 'one' },
          {
            type: 'function_call_output',
            call_id: 'c2',
            output: [{ type: 'input_text', text: 'two' }],
          },
        ],
      }),
    );
    expect(call.dto.messages).toEqual([
      { role: 'system', content: 'Use tools.' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'What is this?' },
          { type: 'image', url: 'data:image/png;base64,AAAA' },
        ],
      },
      {
        role: 'assistant',
        content: 'Let me look.',
        toolCalls: [
          { id: 'c1', name: 'look', arguments: { q: 1 } },
          { id: 'c2', name: 'find', arguments: {} },
        ],
      },
      { role: 'tool', toolCallId: 'c1', toolName: 'look', content: 'one' },
      { role: 'tool', toolCallId: 'c2', toolName: 'find', content: 'two' },
    ]);
  });

  it('puts the previous response items first and names new items by their own index', () => {
    const history = [
      { type: 'message', role: 'user', content: 'Weather?' },
      { type: 'function_call', id: 'fc_1', call_id: 'c1', name: 'weather', arguments: '{}' },
    ];
    const call = toResponseCall(
      req({ input: [{ type: 'function_call_output', call_id: 'c1', output: 'sunny' }] }),
      history,
    );
    expect(call.dto.messages.at(-1)).toEqual({
      role: 'tool',
      toolCallId: 'c1',
      toolName: 'weather',
      content: 'sunny',
    });
    expect(
      refusal(() =>
        toResponseCall(
          req({ input: [{ type: 'function_call_output', call_id: 'c9', output: 'x' }] }),
          history,
        ),
      ),
    ).toEqual([CommonErrorCode.VALIDATION_FAILED, 'input[0].call_id']);
  });

  it('lets an output answer a call of the previous response while that one is unread', () => {
    const output = { input: [{ type: 'function_call_output', call_id: 'c1', output: 'x' }] };
    expect(() => toResponseCall(req(output), 'unread')).not.toThrow();
    expect(refusal(() => toResponseCall(req(output)))).toEqual([
      CommonErrorCode.VALIDATION_FAILED,
      'input[0].call_id',
    ]);
  });

  it('passes function tools, tool_choice, parallel_tool_calls and text.format', () => {
    const call = toResponseCall(
      req({
        tools: [
          { type: 'function', name: 'weather', parameters: { type: 'object' }, strict: true },
          { type: 'function', name: 'noop' },
        ],
        tool_choice: { type: 'function', name: 'weather' },
        parallel_tool_calls: false,
        text: {
          format: { type: 'json_schema', name: 'answer', schema: { type: 'object' }, strict: true },
        },
      }),
    );
    expect(call.clientTools).toEqual({
      tools: [
        { name: 'weather', description: '', parameters: { type: 'object' } },
        { name: 'noop', description: '', parameters: { type: 'object', properties: {} } },
      ],
      toolChoice: { name: 'weather' },
      parallelToolCalls: false,
    });
    expect(call.responseFormat).toEqual({
      type: 'json_schema',
      name: 'answer',
      schema: { type: 'object' },
      strict: true,
    });
    expect(
      toResponseCall(req({ text: { format: { type: 'json_object' } } })).responseFormat,
    ).toEqual({
      type: 'json_object',
    });
    expect(
      toResponseCall(req({ text: { format: { type: 'text' } } })).responseFormat,
    ).toBeUndefined();
  });

  it('refuses what it cannot honour by name, and malformed items by path', () => {
    const unsupported = ModelsErrorCode.UNSUPPORTED_PARAMETER;
    const invalid = CommonErrorCode.VALIDATION_FAILED;
    const cases: [Partial<ResponseCreateDto>, [string, unknown]][] = [
      [{ tools: [{ type: 'web_search' }] }, [unsupported, 'tools[0].type']],
      [{ background: true }, [unsupported, 'background']],
      [{ n: 2 }, [unsupported, 'n']],
      [{ reasoning: { effort: 'high' } }, [unsupported, 'reasoning']],
      [{ include: ['file_search_call.results'] }, [unsupported, 'include']],
      [{ input: [{ type: 'item_reference', id: 'x' }] }, [unsupported, 'input[0].type']],
      [
        { input: [{ role: 'user', content: [{ type: 'input_file', file_id: 'f' }] }] },
        [unsupported, 'input[0].content[0].type'],
      ],
      [
        { input: [{ role: 'user', content: [{ type: 'input_image', file_id: 'f' }] }] },
        [unsupported, 'input[0].content[0].image_url'],
      ],
      [{ input: '' }, [invalid, 'input']],
      [{ input: [] }, [invalid, 'input']],
      [{ input: [{ role: 'tool', content: 'x' }] }, [invalid, 'input[0].role']],
      [{ input: [{ role: 'user', content: '' }] }, [invalid, 'input[0].content']],
      [
        { input: [{ type: 'function_call', call_id: 'c', name: 'f', arguments: 'nope' }] },
        [invalid, 'input[0].arguments'],
      ],
      [{ tools: [{ type: 'function', name: 'bad name' }] }, [invalid, 'tools[0].name']],
      [{ tool_choice: { type: 'function', name: 'x' } }, [invalid, 'tool_choice']],
      [{ tool_choice: 'required' }, [invalid, 'tool_choice']],
      [{ text: { format: { type: 'json_schema', name: 'a' } } }, [invalid, 'text.format.schema']],
      [{ text: { format: { type: 'grammar' } } }, [unsupported, 'text.format.type']],
      [{ metadata: { k: 1 } as never }, [invalid, 'metadata']],
    ];
    for (const [fields, expected] of cases)
      expect([fields, refusal(() => toResponseCall(req(fields)))]).toEqual([fields, expected]);
  });

  it('lets harmless values of unsupported fields through', () => {
    expect(() =>
      toResponseCall(
        req({ background: false, n: 1, include: [], truncation: 'disabled', service_tier: 'auto' }),
      ),
    ).not.toThrow();
  });
});
