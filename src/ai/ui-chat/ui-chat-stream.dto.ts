import { applyDecorators } from '@nestjs/common';
import {
  ApiExtraModels,
  ApiOkResponse,
  ApiProperty,
  ApiPropertyOptional,
  getSchemaPath,
} from '@nestjs/swagger';
import type { ParameterName } from '../../models/dto/model-parameters.dto';
import { SkippedParameters, UsageDto } from '../dto/generate.dto';

/** `messageMetadata` of the assistant message: on `start` the chat id, on `finish` also the charge. */
export class UiReplyMetadataDto {
  @ApiProperty({ format: 'uuid', description: 'the chat the exchange is saved in' })
  chatId: string;
  @ApiPropertyOptional({
    example: 'gpt-4o-mini',
    description: 'on `finish`: the model that answered (a fallback when the requested one failed)',
  })
  modelId?: string;
  @ApiPropertyOptional({ type: UsageDto, description: 'on `finish`' }) usage?: UsageDto;
  @ApiPropertyOptional({ type: 'integer', description: 'on `finish`: credits charged' })
  cost?: number;
  @ApiPropertyOptional({
    type: 'integer',
    description:
      'on `finish`, with plugins: model calls of the tool loop (usage and cost are sums)',
  })
  modelCalls?: number;
  @ApiPropertyOptional({
    enum: ['stop', 'max_tool_steps'],
    description: 'on `finish`, with plugins: why the tool loop stopped',
  })
  stopReason?: 'stop' | 'max_tool_steps';
  /** On `finish`: inherited parameters the model does not take (see GenerateResultDto). */
  @SkippedParameters() skippedParameters?: ParameterName[];
}

/** A UI message chunk `{type, ...props}` as a closed JSON schema. */
const chunk = (type: string, props: Record<string, object> = {}, optional: string[] = []) => ({
  type: 'object',
  required: ['type', ...Object.keys(props).filter((k) => !optional.includes(k))],
  properties: { type: { type: 'string', enum: [type] }, ...props },
});

const metadata = () => ({ $ref: getSchemaPath(UiReplyMetadataDto) });
const text = { type: 'string' };

/** The chunks POST /api/ai/chat sends (a subset of the AI SDK's `UIMessageChunk`). */
const UI_CHUNKS = [
  chunk('start', { messageId: text, messageMetadata: metadata() }),
  chunk('start-step'),
  chunk('text-start', { id: text }),
  chunk('text-delta', { id: text, delta: text }),
  chunk('text-end', { id: text }),
  chunk('finish-step'),
  chunk('finish', {
    finishReason: { type: 'string', enum: ['stop'] },
    messageMetadata: metadata(),
  }),
  chunk('error', { errorText: text }),
  // The tool loop: our tools are dynamic to the client (it declares none).
  chunk(
    'tool-input-available',
    {
      toolCallId: text,
      toolName: text,
      input: { type: 'object', additionalProperties: true },
      dynamic: { type: 'boolean' },
    },
    ['dynamic'],
  ),
  chunk('tool-output-available', { toolCallId: text, output: text, dynamic: { type: 'boolean' } }, [
    'dynamic',
  ]),
  chunk('tool-output-error', { toolCallId: text, errorText: text, dynamic: { type: 'boolean' } }, [
    'dynamic',
  ]),
];

export const UI_CHAT_DESCRIPTION =
  'Speaks the Vercel AI SDK chat transport (`useChat` with `DefaultChatTransport`). `id` is our ' +
  'chat id: a chat of yours (or shared with you) is continued, a new id creates it; only the ' +
  'last (user) message and the reply are saved to an existing chat. `text` parts are read, and ' +
  "a user's `file` parts with an image `mediaType` (a data URL or one of our uploads' URLs). " +
  'The answer is the UI message stream (SSE `data:` frames, header ' +
  '`x-vercel-ai-ui-message-stream: v1`): `start` (metadata `{chatId}`), `start-step`, ' +
  '`text-start`, `text-delta`..., `text-end`, `finish-step`, `finish` (metadata `{chatId, usage, ' +
  'cost, skippedParameters?}`), then `[DONE]`; with `plugins`, each tool call is a ' +
  '`tool-input-available` and a `tool-output-available` (or `tool-output-error`) chunk, and each model call its own step. ' +
  'A failure after opening is one `error` chunk. Failures before the ' +
  'stream opens answer JSON with their status. Metered like POST /api/ai/stream.';

/**
 * The 200 of POST /api/ai/chat: `text/event-stream` whose frames carry only `data:`; the schema
 * of each frame's JSON is `x-sse-data` (the e2e response check reads it; `[DONE]` ends it).
 */
export function ApiUiMessageStreamResponse() {
  return applyDecorators(
    ApiExtraModels(UiReplyMetadataDto),
    ApiOkResponse({
      description: 'UI message stream. Headers `X-Chat-Id`, `Server-Timing`.',
      headers: {
        'X-Chat-Id': {
          description: 'the chat the exchange is saved in',
          schema: { type: 'string', format: 'uuid' },
        },
        'x-vercel-ai-ui-message-stream': { schema: { type: 'string', enum: ['v1'] } },
      },
      content: {
        'text/event-stream': {
          schema: {
            type: 'string',
            description:
              'SSE `data:` frames, each one UI message chunk (`x-sse-data`), then `[DONE]`',
            'x-sse-data': { oneOf: UI_CHUNKS },
          } as object,
          example:
            'data: {"type":"start","messageId":"m1","messageMetadata":{"chatId":"6c1f1f9e-0a4e-4bd5-9a53-0d6f3b0d2c71"}}\n\n' +
            'data: {"type":"text-delta","id":"t1","delta":"Hello"}\n\n' +
            'data: [DONE]\n\n',
        },
      },
    }),
  );
}
