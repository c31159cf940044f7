import { type ModelDescriptor, reasoningBudget } from '../../models/model-catalogue';
import { textTokens } from '../../models/token-estimate';
import { promptTokens } from '../admission/prompt-tokens';
import type { Admission, Outcome } from '../ai.types';
import type { TokenUsage } from '../../models/call.types';

/**
 * The usage a call is charged for, and the note its CONSUMPTION entry's description ends with.
 * The provider's reported usage when it came (after a drain too: then noted "client left");
 * else, for a cut stream, an estimate marked "estimated": the hold's prompt estimate
 * (promptTokens, images at the admitted model's provider) plus the streamed text and tool calls by
 * textTokens, plus, when a drain after the client left ended without usage (ABORT_MODE=drain),
 * the reasoning budget of `model` (the answering one), which the provider may have spent before
 * the cut, recorded as its reasoning tokens.
 */
export function chargedUsage(
  a: Pick<Admission, 'request' | 'model' | 'imageCount' | 'toolTokens'>,
  outcome: Outcome,
  model: ModelDescriptor,
): { usage: TokenUsage; note: string } {
  if (outcome.usage)
    return {
      usage: outcome.usage,
      note: outcome.clientLeft ? ' (client left; usage read to the end)' : '',
    };
  const reasoning = outcome.drainTimedOut ? reasoningBudget(model) : 0;
  const produced = outcome.text + JSON.stringify(outcome.producedCalls ?? []);
  return {
    usage: {
      promptTokens: promptTokens(a.request.messages, a.model, {
        images: a.imageCount,
        toolTokens: a.toolTokens,
      }),
      completionTokens: textTokens(produced) + reasoning,
      ...(reasoning ? { reasoningTokens: reasoning } : {}),
    },
    note: reasoning
      ? ` (estimated: stream interrupted; no usage within the drain, reasoning budget ${reasoning} charged)`
      : ' (estimated: stream interrupted)',
  };
}
