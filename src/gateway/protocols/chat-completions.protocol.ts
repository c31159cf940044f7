import type { Protocol, ProtocolCall } from '../../ai';
import { clientToolsOf, responseFormatOf } from '../chat-completions-tools';
import { completionOf, outputLimitsOf, toGenerateDto } from '../chat-completions.mapper';
import type { ChatCompletionRequestDto } from '../dto/chat-completion.dto';
import { OpenAiStreamSink } from '../openai-stream-sink';

/** A Chat Completions call, with what its answer echoes. */
interface CompletionCall extends ProtocolCall {
  body: ChatCompletionRequestDto;
}

/**
 * `POST /v1/chat/completions`: OpenAI's Chat Completions over a metered call. A wire request
 * carries its own parameters (the caller's stored preferences do not apply); `store: true` saves
 * the exchange as a chat and names it in the answer.
 */
export const CHAT_COMPLETIONS_PROTOCOL: Protocol<ChatCompletionRequestDto, CompletionCall> = {
  toCall: (_user, body) => ({
    body,
    dto: toGenerateDto(body),
    stream: !!body.stream,
    options: {
      store: body.store === true,
      // A wire request carries its own parameters: the caller's stored preferences do not apply.
      preferences: null,
      outputLimits: outputLimitsOf(body),
      clientTools: clientToolsOf(body),
      responseFormat: responseFormatOf(body),
      ...(body.models ? { models: body.models } : {}),
    },
  }),
  toReply: (reply, { dto, options }) =>
    completionOf(
      reply.modelId,
      { ...reply, generationId: options.generationId },
      reply.toolCalls,
      dto.maxTokens,
      options.store ? reply.chatId : undefined,
    ),
  sink: (res, present, { body, dto, options }) =>
    new OpenAiStreamSink(
      res,
      body.model,
      {
        includeUsage: body.stream_options?.include_usage === true,
        maxTokens: dto.maxTokens,
        store: options.store === true,
        generationId: options.generationId,
      },
      present,
    ),
};
