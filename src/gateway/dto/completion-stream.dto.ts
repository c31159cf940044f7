import { applyDecorators } from '@nestjs/common';
import {
  ApiExtraModels,
  ApiOkResponse,
  ApiProperty,
  ApiPropertyOptional,
  getSchemaPath,
} from '@nestjs/swagger';
import { OpenAiErrorDto } from './wire-error.dto';
import { ChatCompletionDto, CompletionUsageDto } from './chat-completion.dto';
import { CompletionToolCallDeltaDto } from './completion-tools.dto';

export class CompletionDeltaDto {
  @ApiPropertyOptional({ enum: ['assistant'], description: 'first chunk only' }) role?: string;
  @ApiPropertyOptional() content?: string;
  @ApiPropertyOptional({
    type: [CompletionToolCallDeltaDto],
    description: 'a tool call: a piece with index, id, type and name, then its arguments',
  })
  tool_calls?: CompletionToolCallDeltaDto[];
}

export class CompletionChunkChoiceDto {
  @ApiProperty({ type: 'integer', enum: [0] }) index: number;
  @ApiProperty({ type: CompletionDeltaDto }) delta: CompletionDeltaDto;
  @ApiProperty({ type: Object, nullable: true }) logprobs: null;
  @ApiProperty({ type: String, enum: ['stop', 'length', 'tool_calls', null], nullable: true })
  finish_reason: 'stop' | 'length' | 'tool_calls' | null;
}

/** One `chat.completion.chunk` frame of a streamed completion. */
export class ChatCompletionChunkDto {
  @ApiProperty() id: string;
  @ApiProperty({ enum: ['chat.completion.chunk'] }) object: string;
  @ApiProperty({ type: 'integer' }) created: number;
  @ApiProperty() model: string;
  @ApiProperty({ type: [CompletionChunkChoiceDto], description: 'empty in the usage chunk' })
  choices: CompletionChunkChoiceDto[];
  @ApiPropertyOptional({
    type: CompletionUsageDto,
    description: 'with `stream_options.include_usage`: in the last chunk only',
  })
  usage?: CompletionUsageDto;
  @ApiPropertyOptional({ type: 'integer', description: 'the usage chunk: credits charged' })
  cost?: number;
}

/**
 * The 200 of POST /v1/chat/completions: `application/json` (ChatCompletionDto), or with
 * `stream: true` `text/event-stream` whose `data:` frames are chunks (`x-sse-data`, read by the
 * e2e response check) or one error, then `[DONE]`.
 */
export function ApiChatCompletionResponse() {
  return applyDecorators(
    ApiExtraModels(ChatCompletionChunkDto, OpenAiErrorDto),
    ApiOkResponse({
      description: 'A completion, or with `stream: true` its chunks. Header `Server-Timing`.',
      content: {
        'application/json': { schema: { $ref: getSchemaPath(ChatCompletionDto) } },
        'text/event-stream': {
          schema: {
            type: 'string',
            description:
              'SSE `data:` frames, each a `chat.completion.chunk` (`x-sse-data`), then `[DONE]`',
            'x-sse-data': {
              oneOf: [
                { $ref: getSchemaPath(ChatCompletionChunkDto) },
                { $ref: getSchemaPath(OpenAiErrorDto) },
              ],
            },
          } as object,
          example:
            'data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1767225600,"model":"gpt-4o-mini","choices":[{"index":0,"delta":{"content":"Bonjour"},"logprobs":null,"finish_reason":null}]}\n\n' +
            'data: [DONE]\n\n',
        },
      },
    }),
  );
}
