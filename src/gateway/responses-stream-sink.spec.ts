import type { Response } from 'express';
import { AppError } from '../common/errors/app-error';
import { AiErrorCode, ServerTiming } from '../ai';
import { ResponsesStreamSink } from './responses-stream-sink';
import { echoOf, pendingResponse, type ResponseObject } from './responses.mapper';
import type { ResponseCreateDto } from './dto/responses.dto';

/** An express response that keeps what is written (status, headers, body). */
function recorder() {
  const out = { status: 0, headers: {} as Record<string, string>, body: '', ended: false };
  const res = {
    status: (s: number) => ((out.status = s), res),
    setHeader: (k: string, v: string) => (out.headers[k.toLowerCase()] = v),
    write: (chunk: string) => ((out.body += chunk), true),
    end: () => {
      out.ended = true;
      res.writableEnded = true;
    },
    writableEnded: false,
  };
  return { res: res as unknown as Response, out };
}

/** The events of an SSE body: `[type, data]`, checking each `event:` names its data's type. */
function events(body: string): [string, Record<string, unknown>][] {
  return body
    .split('\n\n')
    .filter(Boolean)
    .map((frame) => {
      const [, name] = /^event: (.*)$/m.exec(frame)!;
      const data = JSON.parse(/^data: (.*)$/m.exec(frame)![1]) as Record<string, unknown>;
      expect(data.type).toBe(name);
      return [name, data];
    });
}

const pending = () =>
  pendingResponse('resp_1', 'gpt-4o', echoOf({ model: 'gpt-4o', input: 'x' } as ResponseCreateDto));
const usage = { promptTokens: 10, completionTokens: 5 };
const present = (err: unknown) => ({
  status: 500,
  code: err instanceof AppError ? err.code : 'INTERNAL_ERROR',
  error: 'cut',
  details: { param: 'input' },
});

describe('ResponsesStreamSink', () => {
  it('streams text then tool calls in OpenAI order, numbered from 0, ending with the whole response', () => {
    const { res, out } = recorder();
    const sink = new ResponsesStreamSink(res, pending(), present);
    sink.start('chat', new ServerTiming());
    sink.text('Hel');
    sink.text('lo');
    sink.toolCall({ id: 'call_1', name: 'weather', arguments: { city: 'Paris' } });
    const recorded = sink.finish({ usage, cost: 4, finishReason: 'tool_calls' });
    sink.done({ usage, cost: 3, finishReason: 'tool_calls' });
    const got = events(out.body);
    expect(out.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    expect(got.map(([type]) => type)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_text.delta',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.output_item.added',
      'response.function_call_arguments.delta',
      'response.function_call_arguments.done',
      'response.output_item.done',
      'response.completed',
    ]);
    expect(got.map(([, d]) => d.sequence_number)).toEqual(got.map((_, i) => i));
    expect(got[6][1]).toEqual(expect.objectContaining({ text: 'Hello', output_index: 0 }));
    expect(got[11][1]).toEqual(
      expect.objectContaining({ output_index: 1, name: 'weather', arguments: '{"city":"Paris"}' }),
    );
    const response = got.at(-1)![1].response as ResponseObject;
    expect(response).toEqual(
      expect.objectContaining({ id: 'resp_1', status: 'completed', output_text: 'Hello', cost: 3 }),
    );
    expect(response.output.map((i) => [i.type, i.status])).toEqual([
      ['message', 'completed'],
      ['function_call', 'completed'],
    ]);
    expect(response.usage).toEqual({
      input_tokens: 10,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: 5,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: 15,
    });
    // Recorded before the settlement at the price asked; announced with the credits charged.
    expect(recorded).toEqual({ ...response, cost: 4 });
    expect(out.ended).toBe(true);
  });

  it('ends with response.incomplete at the output limit, an empty message when nothing came', () => {
    const { res, out } = recorder();
    const sink = new ResponsesStreamSink(res, pending(), present);
    sink.start('chat', new ServerTiming());
    sink.done({ usage, cost: 1, finishReason: 'length' });
    const got = events(out.body);
    expect(got.map(([type]) => type).slice(2)).toEqual([
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.incomplete',
    ]);
    expect(got.at(-1)![1].response).toEqual(
      expect.objectContaining({
        status: 'incomplete',
        incomplete_details: { reason: 'max_output_tokens' },
      }),
    );
  });

  it('says a failure after the first token as an error event, then ends', () => {
    const { res, out } = recorder();
    const sink = new ResponsesStreamSink(res, pending(), present);
    sink.start('chat', new ServerTiming());
    sink.text('Hi');
    sink.error(new AppError(AiErrorCode.PROVIDER_ERROR, 'boom'));
    const last = events(out.body).at(-1)!;
    expect(last).toEqual([
      'error',
      { type: 'error', sequence_number: 5, code: 'provider_error', message: 'cut', param: 'input' },
    ]);
    expect(out.ended).toBe(true);
  });
});
