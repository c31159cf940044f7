import { PassThrough } from 'node:stream';
import type { Response } from 'express';
import { AiErrorCode, ServerTiming } from '../ai';
import { AppError } from '../common/errors/app-error';
import { AnthropicStreamSink } from './anthropic-stream-sink';

/** A response that records what is written: the sink's whole output as SSE frames. */
function recorder() {
  const out = new PassThrough();
  let text = '';
  out.on('data', (chunk: Buffer) => (text += chunk.toString()));
  const res = Object.assign(out, {
    status: () => res,
    setHeader: () => res,
    socket: null,
  }) as unknown as Response;
  const events = () =>
    text
      .split('\n\n')
      .filter(Boolean)
      .map((frame) => {
        const [, name] = /^event: (.*)$/m.exec(frame)!;
        const data = JSON.parse(/^data: (.*)$/m.exec(frame)![1]) as Record<string, unknown>;
        expect(data.type).toBe(name);
        return data;
      });
  return { res, events };
}

// The presenter's answer (every error these tests raise is a 500).
const present = (err: unknown) => {
  const e = err as AppError;
  return { status: 500, code: e.code, error: e.message };
};

describe('AnthropicStreamSink', () => {
  it("writes Anthropic's event order: text block, tool_use block, message_delta, message_stop", () => {
    const { res, events } = recorder();
    const sink = new AnthropicStreamSink(res, 'gemini-2.5-flash', present);
    sink.start('chat', new ServerTiming());
    sink.text('Hel');
    sink.text('lo');
    sink.toolCall({ id: 'call_1', name: 'get_weather', arguments: { city: 'Paris' } });
    sink.done({
      modelId: 'claude-haiku-4-5',
      usage: { promptTokens: 12, completionTokens: 7 },
      cost: 3,
      chatId: 'chat',
      finishReason: 'tool_calls',
    });
    const all = events();
    expect(all.map((e) => e.type)).toEqual([
      'message_start',
      'content_block_start',
      'ping',
      'content_block_delta',
      'content_block_delta',
      'content_block_stop',
      'content_block_start',
      'content_block_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
    expect(all[0].message).toEqual(
      expect.objectContaining({ model: 'gemini-2.5-flash', content: [], stop_reason: null }),
    );
    expect(all[1]).toEqual({
      type: 'content_block_start',
      index: 0,
      content_block: { type: 'text', text: '' },
    });
    expect(all[4]).toEqual({
      type: 'content_block_delta',
      index: 0,
      delta: { type: 'text_delta', text: 'lo' },
    });
    expect(all[6].content_block).toEqual({
      type: 'tool_use',
      id: 'call_1',
      name: 'get_weather',
      input: {},
    });
    expect(all[7]).toEqual({
      type: 'content_block_delta',
      index: 1,
      delta: { type: 'input_json_delta', partial_json: '{"city":"Paris"}' },
    });
    expect(all[9]).toEqual({
      type: 'message_delta',
      delta: { stop_reason: 'tool_use', stop_sequence: null },
      usage: { input_tokens: 12, output_tokens: 7 },
      cost: 3,
    });
    expect(res.writableEnded).toBe(true);
  });

  it('ends with an error event after the stream opened', () => {
    const { res, events } = recorder();
    const sink = new AnthropicStreamSink(res, 'claude-haiku-4-5', present);
    sink.start('chat', new ServerTiming());
    sink.text('Hi');
    sink.error(new AppError(AiErrorCode.PROVIDER_ERROR, 'upstream failed'));
    expect(events().at(-1)).toEqual({
      type: 'error',
      error: {
        type: 'api_error',
        message: 'upstream failed',
        details: { error_code: 'provider_error' },
      },
    });
  });
});
