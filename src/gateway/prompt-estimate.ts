import type { ClientTools, WireGenerateDto } from '../ai/client-tools';
import { clientToolTokens } from '../ai/client-tools-admission';
import { IMAGE_TOKENS_WORST_CASE } from '../ai/image-tokens';
import { readInputs } from '../ai/message-inputs';
import type { ModelDescriptor } from '../models/model-catalogue';
import { promptTextTokens } from '../models/token-estimate';

/**
 * The prompt tokens of a wire request as the credit hold estimates them: promptTextTokens of the
 * messages' text (tool results included; ceil(ASCII characters / 4) plus one per other code
 * point), each image at its provider's worst case
 * (IMAGE_TOKENS_WORST_CASE), and the JSON of the client tools and of earlier turns' tool calls
 * (clientToolTokens). An estimate, not the provider's tokenizer. Throws as admission reads the
 * messages (413 over MAX_CONTENT_CHARS, 400 for too many images).
 */
export function promptTokensEstimate(
  dto: WireGenerateDto,
  model: ModelDescriptor,
  clientTools: ClientTools | undefined,
  ownOrigin: string,
): number {
  const inputs = readInputs(dto.messages, ownOrigin);
  const images = inputs.reduce((n, m) => n + m.images.length, 0);
  return (
    promptTextTokens(inputs) +
    images * IMAGE_TOKENS_WORST_CASE[model.providerId] +
    clientToolTokens(
      clientTools ? { clientTools } : {},
      inputs.map(({ role, content, toolCalls }) => ({ role, content, toolCalls })),
    )
  );
}
