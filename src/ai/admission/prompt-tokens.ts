import type { ModelDescriptor } from '../../models/model-catalogue';
import { promptTextTokens } from '../../models/token-estimate';
import type { ClientTools } from '../providers/client-tools';
import { clientToolTokens } from './client-tools-admission';
import { IMAGE_TOKENS_WORST_CASE } from './image-tokens';
import type { InputMessage } from './message-inputs';

/** What a prompt sends beside its messages' text. */
export interface PromptExtras {
  /** Number of images (each at the answering provider's worst case). */
  images: number;
  /** Prompt tokens of the client tools' JSON (see clientToolTokens). */
  toolTokens: number;
}

/**
 * The prompt tokens of a call, as the hold counts them for `model` (the one function for the
 * hold, `count_tokens` and the estimate of a cut stream): promptTextTokens of the messages' text
 * (ceil(ASCII characters / 4) plus one per other code point), each image at `model`'s provider
 * worst case (IMAGE_TOKENS_WORST_CASE), and the client tools' tokens. An estimate, an upper
 * bound for the text, not the provider's tokenizer.
 */
export function promptTokens(
  messages: readonly { content: string }[],
  model: Pick<ModelDescriptor, 'providerId'>,
  extras: PromptExtras,
): number {
  return (
    promptTextTokens(messages) +
    extras.images * IMAGE_TOKENS_WORST_CASE[model.providerId] +
    extras.toolTokens
  );
}

/**
 * promptTokens of a request's read `inputs` to `model` (`count_tokens`): their images, and the
 * JSON of the client tools and of earlier turns' tool calls (clientToolTokens).
 */
export function inputPromptTokens(
  inputs: InputMessage[],
  model: Pick<ModelDescriptor, 'providerId'>,
  clientTools: ClientTools | undefined,
): number {
  const images = inputs.reduce((n, m) => n + m.images.length, 0);
  const toolTokens = clientToolTokens(
    clientTools ? { clientTools } : {},
    inputs.map(({ role, content, toolCalls }) => ({ role, content, toolCalls })),
  );
  return promptTokens(inputs, model, { images, toolTokens });
}
