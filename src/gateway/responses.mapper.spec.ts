import type { ResponseCreateDto } from './dto/responses.dto';
import { echoOf, finishedResponse, outputOf, pendingResponse } from './responses.mapper';

const call = { id: 'call_1', name: 'weather', arguments: { city: 'Oslo' } };

describe('responses mapper', () => {
  it("echoes the request with OpenAI's defaults", () => {
    expect(echoOf({ model: 'gpt-4o', input: 'x' } as ResponseCreateDto)).toEqual({
      instructions: null,
      max_output_tokens: null,
      tools: [],
      tool_choice: 'auto',
      parallel_tool_calls: true,
      temperature: null,
      top_p: null,
      text: { format: { type: 'text' } },
      store: false,
      previous_response_id: null,
      metadata: {},
    });
    const tools = [{ type: 'function', name: 'weather', parameters: { type: 'object' } }];
    expect(echoOf({ model: 'm', input: 'x', tools } as ResponseCreateDto).tools).toEqual([
      { ...tools[0], description: null, strict: true },
    ]);
  });

  it('puts the text first as one message, then one function_call per call; no empty message with calls', () => {
    const both = outputOf('Looking.', [call], false);
    expect(both.map((item) => item.type)).toEqual(['message', 'function_call']);
    expect(both[1]).toEqual(
      expect.objectContaining({
        call_id: 'call_1',
        arguments: '{"city":"Oslo"}',
        status: 'completed',
      }),
    );
    expect(outputOf('', [call], false).map((item) => item.type)).toEqual(['function_call']);
    expect(outputOf('', [], false)).toEqual([expect.objectContaining({ type: 'message' })]);
    expect(outputOf('cut', [], true)[0].status).toBe('incomplete');
  });

  it('finishes a response: completed, or incomplete at the output limit, with usage and cost', () => {
    const pending = pendingResponse(
      'resp_1',
      'gpt-4o',
      echoOf({ model: 'gpt-4o' } as ResponseCreateDto),
    );
    const usage = { promptTokens: 7, completionTokens: 3, cachedTokens: 2, reasoningTokens: 1 };
    const done = finishedResponse(pending, outputOf('Hi', [], false), {
      usage,
      cost: 2,
      finishReason: 'stop',
    });
    expect(done).toEqual(
      expect.objectContaining({
        status: 'completed',
        incomplete_details: null,
        output_text: 'Hi',
        cost: 2,
        usage: {
          input_tokens: 7,
          input_tokens_details: { cached_tokens: 2 },
          output_tokens: 3,
          output_tokens_details: { reasoning_tokens: 1 },
          total_tokens: 10,
        },
      }),
    );
    const cut = finishedResponse(pending, [], { usage, cost: 2, finishReason: 'length' });
    expect([cut.status, cut.incomplete_details]).toEqual([
      'incomplete',
      { reason: 'max_output_tokens' },
    ]);
  });
});
