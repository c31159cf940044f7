import { applyDecorators } from '@nestjs/common';
import {
  ApiExtraModels,
  ApiOkResponse,
  ApiProperty,
  ApiPropertyOptional,
  getSchemaPath,
} from '@nestjs/swagger';
import type { ResponseUsage } from '../responses.mapper';

/** The event types of a streamed response, in the order they may come. */
export const RESPONSE_STREAM_EVENTS = [
  'response.created',
  'response.in_progress',
  'response.output_item.added',
  'response.content_part.added',
  'response.output_text.delta',
  'response.output_text.done',
  'response.content_part.done',
  'response.output_item.done',
  'response.function_call_arguments.delta',
  'response.function_call_arguments.done',
  'response.completed',
  'response.incomplete',
  'error',
];

export class OutputTextDto {
  @ApiProperty({ enum: ['output_text'] }) type: 'output_text';
  @ApiProperty() text: string;
  @ApiProperty({ type: 'array', items: { type: 'object' }, description: 'always empty' })
  annotations: never[];
  @ApiProperty({ type: 'array', items: { type: 'object' }, description: 'always empty' })
  logprobs: never[];
}

/**
 * One output item: an assistant `message` (`content`: one `output_text`) or a `function_call`
 * for the client to run (`call_id`, `name`, `arguments` as a JSON string).
 */
export class OutputItemDto {
  @ApiProperty({ enum: ['message', 'function_call'] }) type: string;
  @ApiProperty({ example: 'msg_0a1b…', description: '`msg_…` or `fc_…`' }) id: string;
  @ApiProperty({ enum: ['in_progress', 'completed', 'incomplete'] }) status: string;
  @ApiPropertyOptional({ enum: ['assistant'], description: 'messages' }) role?: string;
  @ApiPropertyOptional({ type: [OutputTextDto], description: 'messages' })
  content?: OutputTextDto[];
  @ApiPropertyOptional({ description: 'function calls: what `function_call_output` names' })
  call_id?: string;
  @ApiPropertyOptional({ description: 'function calls' }) name?: string;
  @ApiPropertyOptional({ description: 'function calls: a JSON object as a string' })
  arguments?: string;
}

/**
 * The `response` object of OpenAI's Responses API, plus our `cost`. Echoes the request's
 * `instructions`, `max_output_tokens`, `tools`, `tool_choice`, `parallel_tool_calls`,
 * `temperature`, `top_p`, `text`, `store`, `previous_response_id` and `metadata`.
 */
export class ResponseObjectDto {
  @ApiProperty({ example: 'resp_0a1b2c…' }) id: string;
  @ApiProperty({ enum: ['response'] }) object: string;
  @ApiProperty({ type: 'integer', description: 'Unix seconds' }) created_at: number;
  @ApiProperty({
    enum: ['in_progress', 'completed', 'incomplete'],
    description: '`incomplete` when the reply reached `max_output_tokens`',
  })
  status: string;
  @ApiProperty({ type: Object, nullable: true, description: 'always null' }) error: null;
  @ApiProperty({
    type: 'object',
    nullable: true,
    properties: { reason: { type: 'string', enum: ['max_output_tokens'] } },
    required: ['reason'],
    description: 'with `status: "incomplete"`: why',
  })
  incomplete_details: { reason: 'max_output_tokens' } | null;
  @ApiProperty() model: string;
  @ApiProperty({ type: [OutputItemDto] }) output: OutputItemDto[];
  @ApiProperty({ description: 'the text of every output message, joined' }) output_text: string;
  @ApiProperty({
    type: 'object',
    nullable: true,
    properties: {
      input_tokens: { type: 'integer' },
      input_tokens_details: {
        type: 'object',
        properties: { cached_tokens: { type: 'integer' } },
        required: ['cached_tokens'],
      },
      output_tokens: { type: 'integer' },
      output_tokens_details: {
        type: 'object',
        properties: { reasoning_tokens: { type: 'integer' } },
        required: ['reasoning_tokens'],
      },
      total_tokens: { type: 'integer' },
    },
    required: [
      'input_tokens',
      'input_tokens_details',
      'output_tokens',
      'output_tokens_details',
      'total_tokens',
    ],
    description: 'tokens; null until settled (`response.created`, `response.in_progress`)',
  })
  usage: ResponseUsage | null;
  @ApiPropertyOptional({ type: 'integer', description: 'credits charged (our extra field)' })
  cost?: number;
  @ApiProperty({ type: String, nullable: true }) instructions: string | null;
  @ApiProperty({ type: 'integer', nullable: true }) max_output_tokens: number | null;
  @ApiProperty({ type: 'array', items: { type: 'object' } }) tools: object[];
  @ApiProperty({
    oneOf: [{ type: 'string' }, { type: 'object' }],
    description: 'as sent, `auto` by default',
  })
  tool_choice: unknown;
  @ApiProperty() parallel_tool_calls: boolean;
  @ApiProperty({ type: 'number', nullable: true }) temperature: number | null;
  @ApiProperty({ type: 'number', nullable: true }) top_p: number | null;
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description: '`{format}` as sent, `{type: "text"}` by default',
  })
  text: object;
  @ApiProperty() store: boolean;
  @ApiProperty({ type: String, nullable: true }) previous_response_id: string | null;
  @ApiProperty({ type: 'object', additionalProperties: { type: 'string' } })
  metadata: Record<string, unknown>;
}

/** The answer of `DELETE /v1/responses/{response_id}` (OpenAI's deletion object). */
export class ResponseDeletedDto {
  @ApiProperty({ example: 'resp_0a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f6071' }) id: string;
  @ApiProperty({ enum: ['response'] }) object: 'response';
  @ApiProperty({ enum: [true] }) deleted: true;
}

/**
 * One event of a streamed response (`event: <type>`, `data` this object). Lifecycle events
 * (`response.created`, `response.in_progress`, `response.completed`, `response.incomplete`)
 * carry `response`; item events `output_index` and `item`; part and delta events `item_id`,
 * `content_index`, `part`, `delta`, `text` or `arguments`; `error` carries `code`, `message`,
 * `param`.
 */
export class ResponseStreamEventDto {
  @ApiProperty({ enum: RESPONSE_STREAM_EVENTS })
  type: string;
  @ApiProperty({ type: 'integer', description: 'from 0, one more per event' })
  sequence_number: number;
  @ApiPropertyOptional({ type: ResponseObjectDto }) response?: ResponseObjectDto;
  @ApiPropertyOptional({ type: 'integer' }) output_index?: number;
  @ApiPropertyOptional({ type: OutputItemDto }) item?: OutputItemDto;
  @ApiPropertyOptional() item_id?: string;
  @ApiPropertyOptional({ type: 'integer' }) content_index?: number;
  @ApiPropertyOptional({ type: OutputTextDto }) part?: OutputTextDto;
  @ApiPropertyOptional({ description: 'a text or arguments fragment' }) delta?: string;
  @ApiPropertyOptional() text?: string;
  @ApiPropertyOptional() name?: string;
  @ApiPropertyOptional() arguments?: string;
  @ApiPropertyOptional({ type: 'array', items: { type: 'object' } }) logprobs?: never[];
  @ApiPropertyOptional({ type: String, nullable: true, description: '`error`' })
  code?: string | null;
  @ApiPropertyOptional({ description: '`error`' }) message?: string;
  @ApiPropertyOptional({ type: String, nullable: true, description: '`error`' })
  param?: string | null;
}

/**
 * The 200 of POST /v1/responses: `application/json` (ResponseObjectDto), or with
 * `stream: true` `text/event-stream` whose events' `data` are ResponseStreamEventDto
 * (`x-sse-events`, read by the e2e response check).
 */
export function ApiResponsesResponse() {
  return applyDecorators(
    ApiExtraModels(ResponseObjectDto, ResponseStreamEventDto),
    ApiOkResponse({
      description: 'A response, or with `stream: true` its events. Header `Server-Timing`.',
      content: {
        'application/json': { schema: { $ref: getSchemaPath(ResponseObjectDto) } },
        'text/event-stream': {
          schema: {
            type: 'string',
            description:
              'SSE `event: <type>` + `data:` frames, each a ResponseStreamEventDto ' +
              '(`x-sse-events`), from `response.created` to `response.completed`',
            'x-sse-events': Object.fromEntries(
              RESPONSE_STREAM_EVENTS.map((type) => [
                type,
                { $ref: getSchemaPath(ResponseStreamEventDto) },
              ]),
            ),
          } as object,
          example:
            'event: response.output_text.delta\n' +
            'data: {"type":"response.output_text.delta","sequence_number":4,"item_id":"msg_1","output_index":0,"content_index":0,"delta":"Bonjour","logprobs":[]}\n\n',
        },
      },
    }),
  );
}
