import { applyDecorators } from '@nestjs/common';
import {
  ApiExtraModels,
  ApiOkResponse,
  ApiProperty,
  ApiPropertyOptional,
  getSchemaPath,
} from '@nestjs/swagger';
import { ErrorDto } from '../../common/openapi/error.dto';
import type { ParameterName } from '../../models/dto/model-parameters.dto';
import { SkippedParameters, UsageDto } from './generate.dto';

/** `event: delta`: the next piece of the reply. */
export class StreamDeltaDto {
  @ApiProperty({ example: 'Start at' }) text: string;
}

/** `event: done`: the reply is complete, charged and saved. */
export class StreamDoneDto {
  @ApiProperty({
    example: 'gpt-4o-mini',
    description:
      'the model that answered: the requested one, or a fallback when its upstreams all failed (priced at its rate)',
  })
  modelId: string;
  @ApiProperty({ type: UsageDto, description: 'with plugins: summed over the model calls' })
  usage: UsageDto;
  @ApiProperty({
    type: 'integer',
    description: 'credits charged (with plugins: the sum of every model call of the loop)',
  })
  cost: number;
  @ApiProperty({ format: 'uuid', description: 'the chat the exchange was saved in' })
  chatId: string;
  @ApiPropertyOptional({
    type: 'integer',
    description: 'with plugins: model calls made (each one a CONSUMPTION entry)',
  })
  modelCalls?: number;
  @ApiPropertyOptional({
    enum: ['stop', 'max_tool_steps'],
    description: 'with plugins: `max_tool_steps` when the model still asked for tools at the limit',
  })
  stopReason?: 'stop' | 'max_tool_steps';
  @SkippedParameters() skippedParameters?: ParameterName[];
}

/** `event: tool_call`: the model asked to run a tool. */
export class StreamToolCallDto {
  @ApiProperty({ example: 'call_abc123' }) id: string;
  @ApiProperty({ example: 'calculator' }) name: string;
  @ApiProperty({ type: 'object', additionalProperties: true, example: { expression: '2^10' } })
  arguments: Record<string, unknown>;
}

/** `event: tool_result`: what the tool gave (the model gets the whole result). */
export class StreamToolResultDto {
  @ApiProperty({ example: 'call_abc123' }) id: string;
  @ApiProperty({ example: 'calculator' }) name: string;
  @ApiProperty({ description: 'false: the tool failed; the model was told the error' }) ok: boolean;
  @ApiProperty({ example: '1024', description: 'at most 200 characters' }) summary: string;
}

/** The events of the SSE form of POST /api/ai/stream and their `data` (see SseStreamSink). */
const SSE_EVENT_DATA = {
  delta: StreamDeltaDto,
  done: StreamDoneDto,
  tool_call: StreamToolCallDto,
  tool_result: StreamToolResultDto,
  /** A failure after the stream opened: `{error, code}` as the error filter would say it. */
  error: ErrorDto,
};
export type SseEvent = keyof typeof SSE_EVENT_DATA;
export const SSE_EVENTS = Object.keys(SSE_EVENT_DATA) as SseEvent[];

export const STREAM_DESCRIPTION =
  'Answers by `Accept`: `text/plain` streams the reply as incremental UTF-8 text; ' +
  '`text/event-stream` sends Server-Sent Events: `: ping` comments until the first token, ' +
  'then `event: delta` `data: StreamDeltaDto` per chunk (with `plugins`, `event: tool_call` and ' +
  '`event: tool_result` between them as the tool loop runs), and one `event: done` ' +
  '`data: StreamDoneDto` or one `event: error` `data: ErrorDto` (a failure after the stream ' +
  'opened). An `Accept` naming neither follows the preferred `streamFormat` (default text). ' +
  'Failures before the stream opens answer JSON with their status.';

/**
 * The 200 of POST /api/ai/stream: `text/plain`, and `text/event-stream` whose schema names each
 * event with the schema of its `data` in `x-sse-events` (OpenAPI 3.0 cannot describe the
 * frames themselves; the e2e response check reads this map).
 */
export function ApiAiStreamResponse() {
  return applyDecorators(
    ApiExtraModels(StreamDeltaDto, StreamDoneDto, StreamToolCallDto, StreamToolResultDto, ErrorDto),
    ApiOkResponse({
      description: 'The reply as it is generated. Headers `X-Chat-Id` and `Server-Timing`.',
      headers: {
        'X-Chat-Id': {
          description: 'the chat the exchange is saved in',
          schema: { type: 'string', format: 'uuid' },
        },
      },
      content: {
        'text/plain': {
          schema: { type: 'string', description: 'the reply text, chunk by chunk' },
          example: 'Start at the Gulbenkian museum...',
        },
        'text/event-stream': {
          schema: {
            type: 'string',
            description: `SSE events: ${SSE_EVENTS.map((e) => `\`${e}\``).join(', ')}`,
            'x-sse-events': Object.fromEntries(
              Object.entries(SSE_EVENT_DATA).map(([e, dto]) => [e, { $ref: getSchemaPath(dto) }]),
            ),
          } as object,
          example:
            ': ping\n\nevent: delta\ndata: {"text":"Start at"}\n\n' +
            'event: done\ndata: {"usage":{"promptTokens":42,"completionTokens":128},"cost":1,' +
            '"chatId":"6c1f1f9e-0a4e-4bd5-9a53-0d6f3b0d2c71"}\n\n',
        },
      },
    }),
  );
}
