import type { Protocol, ProtocolCall } from '../../ai';
import { anthropicMessageOf } from '../anthropic-message.mapper';
import {
  clientToolsOf,
  MESSAGES_OUTPUT_LIMITS,
  toWireGenerateDto,
  wantsThinking,
} from '../anthropic-messages.mapper';
import { AnthropicStreamSink } from '../anthropic-stream-sink';
import type { AnthropicMessageOutDto } from '../dto/message.dto';
import type { MessagesRequestDto } from '../dto/messages-request.dto';

/** A Messages call, with the model it names. */
interface MessagesCall extends ProtocolCall {
  model: string;
}

/**
 * `POST /v1/messages`: Anthropic's Messages over a metered call. Nothing is saved as a chat; the
 * request's own parameters apply (no stored preferences); `thinking` enabled needs a reasoning
 * model (checked by admission).
 */
export const MESSAGES_PROTOCOL: Protocol<MessagesRequestDto, MessagesCall> = {
  toCall: (_user, body) => {
    const dto = toWireGenerateDto(body);
    const clientTools = clientToolsOf(body);
    return {
      model: body.model,
      dto,
      stream: !!body.stream,
      options: {
        store: false,
        // A wire request carries its own parameters: the caller's stored preferences do not apply.
        preferences: null,
        outputLimits: MESSAGES_OUTPUT_LIMITS,
        ...(clientTools ? { clientTools } : {}),
        ...(wantsThinking(body) ? { thinking: true } : {}),
      },
    };
  },
  toReply: (reply, { options }) =>
    anthropicMessageOf(reply.modelId, reply, options.generationId) satisfies AnthropicMessageOutDto,
  sink: (res, present, { model, options }) =>
    new AnthropicStreamSink(res, model, present, options.generationId),
};
