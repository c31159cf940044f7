import type { ClientTools, WireGenerateDto } from '../ai/client-tools';
import { IMAGE_TOKENS_WORST_CASE } from '../ai/image-tokens';
import type { ModelDescriptor } from '../models/model-catalogue';

/** Code points of a string (a surrogate pair is one character, as the hold counts them). */
const chars = (s: string) => [...s].length;

/**
 * The prompt tokens of a wire request as the credit hold estimates them: ceil(characters / 4)
 * of every message's text, tool calls (name and arguments as JSON), tool results and tool
 * definitions (name, description, JSON Schema), plus each image at its provider's worst case
 * (IMAGE_TOKENS_WORST_CASE). An estimate, not the provider's tokenizer.
 */
export function promptTokensEstimate(
  dto: WireGenerateDto,
  model: ModelDescriptor,
  tools?: ClientTools,
): number {
  let text = 0;
  let images = 0;
  for (const m of dto.messages) {
    if (typeof m.content === 'string') text += chars(m.content);
    else
      for (const part of m.content)
        if (part.type === 'text') text += chars(part.text);
        else images++;
    if ('toolCalls' in m)
      for (const call of m.toolCalls) text += chars(call.name + JSON.stringify(call.arguments));
  }
  for (const t of tools?.tools ?? [])
    text += chars(t.name + t.description + JSON.stringify(t.parameters));
  return Math.ceil(text / 4) + images * IMAGE_TOKENS_WORST_CASE[model.providerId];
}
