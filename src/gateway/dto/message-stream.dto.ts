import { applyDecorators } from '@nestjs/common';
import {
  ApiExtraModels,
  ApiOkResponse,
  ApiProperty,
  ApiPropertyOptional,
  getSchemaPath,
} from '@nestjs/swagger';
import { AnthropicErrorDto } from './wire-error.dto';
import {
  AnthropicMessageOutDto,
  AnthropicTextBlockDto,
  AnthropicToolUseBlockDto,
  AnthropicUsageDto,
  CONTENT_BLOCK_SCHEMA,
  STOP_REASONS,
  type StopReason,
} from './message.dto';

/** The message of `message_start`: no content yet, no stop reason, usage 0. */
export class StreamedMessageStartDto {
  @ApiProperty() id: string;
  @ApiProperty({ enum: ['message'] }) type: 'message';
  @ApiProperty({ enum: ['assistant'] }) role: 'assistant';
  @ApiProperty() model: string;
  @ApiProperty({ type: 'array', items: CONTENT_BLOCK_SCHEMA, maxItems: 0 }) content: [];
  @ApiProperty({ type: String, nullable: true, enum: [null] }) stop_reason: null;
  @ApiProperty({ type: String, nullable: true, enum: [null] }) stop_sequence: null;
  @ApiProperty({ type: AnthropicUsageDto }) usage: AnthropicUsageDto;
}

export class MessageStartEventDto {
  @ApiProperty({ enum: ['message_start'] }) type: 'message_start';
  @ApiProperty({ type: StreamedMessageStartDto }) message: StreamedMessageStartDto;
}

@ApiExtraModels(AnthropicTextBlockDto, AnthropicToolUseBlockDto)
export class ContentBlockStartEventDto {
  @ApiProperty({ enum: ['content_block_start'] }) type: 'content_block_start';
  @ApiProperty({ type: 'integer' }) index: number;
  @ApiProperty({
    ...CONTENT_BLOCK_SCHEMA,
    description: 'empty text, or the tool_use with input {}',
  })
  content_block: object;
}

export class BlockDeltaDto {
  @ApiProperty({ enum: ['text_delta', 'input_json_delta'] }) type: string;
  @ApiPropertyOptional({ description: '`text_delta`: the text' }) text?: string;
  @ApiPropertyOptional({ description: "`input_json_delta`: the tool call's arguments as JSON" })
  partial_json?: string;
}

export class ContentBlockDeltaEventDto {
  @ApiProperty({ enum: ['content_block_delta'] }) type: 'content_block_delta';
  @ApiProperty({ type: 'integer' }) index: number;
  @ApiProperty({ type: BlockDeltaDto }) delta: BlockDeltaDto;
}

export class ContentBlockStopEventDto {
  @ApiProperty({ enum: ['content_block_stop'] }) type: 'content_block_stop';
  @ApiProperty({ type: 'integer' }) index: number;
}

export class PingEventDto {
  @ApiProperty({ enum: ['ping'] }) type: 'ping';
}

export class MessageDeltaDto {
  @ApiProperty({ enum: STOP_REASONS }) stop_reason: StopReason;
  @ApiProperty({ type: String, nullable: true, enum: [null] }) stop_sequence: null;
}

export class MessageDeltaEventDto {
  @ApiProperty({ enum: ['message_delta'] }) type: 'message_delta';
  @ApiProperty({ type: MessageDeltaDto }) delta: MessageDeltaDto;
  @ApiProperty({ type: AnthropicUsageDto, description: 'the whole usage of the message' })
  usage: AnthropicUsageDto;
  @ApiProperty({ type: 'integer', description: 'credits charged (our extra field)' }) cost: number;
}

export class MessageStopEventDto {
  @ApiProperty({ enum: ['message_stop'] }) type: 'message_stop';
}

const EVENTS = {
  message_start: MessageStartEventDto,
  content_block_start: ContentBlockStartEventDto,
  ping: PingEventDto,
  content_block_delta: ContentBlockDeltaEventDto,
  content_block_stop: ContentBlockStopEventDto,
  message_delta: MessageDeltaEventDto,
  message_stop: MessageStopEventDto,
  error: AnthropicErrorDto,
};

/**
 * The 200 of POST /v1/messages: `application/json` (the message), or with `stream: true`
 * `text/event-stream` whose named events (`x-sse-events`, read by the e2e response check) are
 * Anthropic's.
 */
export function ApiAnthropicMessageResponse() {
  return applyDecorators(
    ApiExtraModels(AnthropicMessageOutDto, ...Object.values(EVENTS)),
    ApiOkResponse({
      description: 'A message, or with `stream: true` its events. Header `Server-Timing`.',
      content: {
        'application/json': { schema: { $ref: getSchemaPath(AnthropicMessageOutDto) } },
        'text/event-stream': {
          schema: {
            type: 'string',
            description:
              '`event: <type>` and `data: <json>` frames: message_start, per block ' +
              'content_block_start, content_block_delta…, content_block_stop (ping after the ' +
              'first start), then message_delta and message_stop; or `error`',
            'x-sse-events': Object.fromEntries(
              Object.entries(EVENTS).map(([name, dto]) => [name, { $ref: getSchemaPath(dto) }]),
            ),
          } as object,
          example:
            'event: message_start\ndata: {"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-haiku-4-5","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":0,"output_tokens":0}}}\n\n' +
            'event: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}\n\n' +
            'event: ping\ndata: {"type":"ping"}\n\n' +
            'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Bonjour"}}\n\n' +
            'event: content_block_stop\ndata: {"type":"content_block_stop","index":0}\n\n' +
            'event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"input_tokens":10,"output_tokens":2},"cost":1}\n\n' +
            'event: message_stop\ndata: {"type":"message_stop"}\n\n',
        },
      },
    }),
  );
}
