import { AppError, CommonErrorCode } from '../../common/errors/app-error';
import { AiErrorCode } from '../ai.errors';
import { codePoints } from '../../common/text/code-points';
import { MAX_CONTENT_CHARS, type GenerateMessageDto } from '../dto/generate.dto';
import { type ImageSource, MAX_IMAGES_PER_REQUEST, splitContent } from '../dto/message-content';
import type { ModelDescriptor } from '../../models/model-catalogue';
import type { Capability } from '../../models/model-entry';
import type { ImageInput, ProviderMessage } from '../providers/model-provider';
import type { ToolCall, WireMessage } from '../../models/call.types';

/**
 * A request message split into its text (priced, saved) and its images. `uploadIds` are the
 * uploads among its images once resolved (saved as the message's attachments; inline data URLs
 * are sent, not saved).
 */
export interface InputMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string;
  images: ImageSource[];
  uploadIds: string[];
  /** An assistant turn of a wire request: the client tools it called. */
  toolCalls?: ToolCall[];
  /** A `tool` message of a wire request: the call it answers. */
  toolCall?: { id: string; name: string; ok: boolean };
}

/**
 * The request's messages as InputMessages. Throws PAYLOAD_TOO_LARGE (413) when the text of all
 * messages exceeds MAX_CONTENT_CHARS, VALIDATION_FAILED (400) for more than
 * MAX_IMAGES_PER_REQUEST images or an image outside a `user` message.
 */
export function readInputs(
  messages: (GenerateMessageDto | WireMessage)[],
  ownOrigin: string,
): InputMessage[] {
  const inputs = messages.map((m): InputMessage => {
    if (m.role === 'tool') {
      const toolCall = { id: m.toolCallId, name: m.toolName, ok: !m.isError };
      return { role: 'tool', content: m.content, images: [], uploadIds: [], toolCall };
    }
    const { text, images } = splitContent(m.content, ownOrigin);
    const calls = 'toolCalls' in m && m.toolCalls.length ? { toolCalls: m.toolCalls } : {};
    return { role: m.role, content: text, images, uploadIds: [], ...calls };
  });
  const chars = inputs.reduce((n, m) => n + codePoints(m.content), 0);
  if (chars > MAX_CONTENT_CHARS)
    throw new AppError(
      CommonErrorCode.PAYLOAD_TOO_LARGE,
      `Messages exceed ${MAX_CONTENT_CHARS} characters`,
    );
  const images = inputs.reduce((n, m) => n + m.images.length, 0);
  if (images > MAX_IMAGES_PER_REQUEST)
    throw new AppError(
      CommonErrorCode.VALIDATION_FAILED,
      `At most ${MAX_IMAGES_PER_REQUEST} images per request (got ${images})`,
    );
  if (inputs.some((m) => m.role !== 'user' && m.images.length))
    throw new AppError(
      CommonErrorCode.VALIDATION_FAILED,
      'Images can only be sent in user messages',
    );
  return inputs;
}

const CAPABILITY_MISSING: Partial<Record<Capability, (id: string) => string>> = {
  vision: (id) => `Model ${id} cannot read images`,
  tools: (id) => `Model ${id} cannot call tools`,
  structured_output: (id) =>
    `Model ${id} cannot answer in a JSON format (no structured_output capability)`,
};

/** Throws MODEL_CAPABILITY_MISSING (400; the message names the model) when `model` lacks it. */
export function requireCapability(model: ModelDescriptor, capability: Capability): void {
  if (!model.capabilities?.includes(capability))
    throw new AppError(
      AiErrorCode.MODEL_CAPABILITY_MISSING,
      CAPABILITY_MISSING[capability]?.(model.id) ?? `Model ${model.id} lacks ${capability}`,
    );
}

/**
 * The provider messages of `inputs` (after `system`, when given), each user message carrying
 * its images: `images` holds one ImageInput per image of all messages, in order.
 */
export function toProviderMessages(
  inputs: InputMessage[],
  system: string | undefined,
  images: ImageInput[] = [],
): ProviderMessage[] {
  let next = 0;
  const out: ProviderMessage[] = system ? [{ role: 'system', content: system }] : [];
  for (const m of inputs) {
    const own = m.images.map(() => images[next++]).filter(Boolean);
    out.push({
      role: m.role,
      content: m.content,
      ...(own.length ? { images: own } : {}),
      ...(m.toolCalls ? { toolCalls: m.toolCalls } : {}),
      ...(m.toolCall ? { toolCall: m.toolCall } : {}),
    });
  }
  return out;
}
