import { AppError, CommonErrorCode } from '../../common/errors/app-error';
import { AiErrorCode } from '../ai.errors';
import { textTokens } from '../../models/token-estimate';
import type { ModelDescriptor } from '../../models/model-catalogue';
import type { ClientTools, ResponseFormat } from '../providers/client-tools';
import { requireCapability } from './message-inputs';
import type { ProviderMessage } from '../providers/model-provider';

// Admission of the client tools and answer format of a wire request (see client-tools.ts).

/**
 * Checks a call's client tools and format against its model before anything is held: throws
 * VALIDATION_FAILED (400) for client tools together with plugins (the server would run some
 * tools and return others), MODEL_CAPABILITY_MISSING (400) for client tools to a model without
 * `tools` or a response format to one without `structured_output`.
 */
export function checkClientTools(
  model: ModelDescriptor,
  options: { clientTools?: ClientTools; responseFormat?: ResponseFormat },
  hasPlugins: boolean,
): void {
  if (options.clientTools) {
    if (hasPlugins)
      throw new AppError(
        CommonErrorCode.VALIDATION_FAILED,
        'Client tools cannot be combined with plugins (the plugins run on the server)',
      );
    requireCapability(model, 'tools');
  }
  if (options.responseFormat) requireCapability(model, 'structured_output');
}

/**
 * Checks a call that enables extended thinking (`thinking`) against its model: throws
 * MODEL_CAPABILITY_MISSING (400, `param: "thinking"`) when the model does not reason.
 */
export function checkThinking(model: ModelDescriptor, options: { thinking?: boolean }): void {
  if (options.thinking && !model.capabilities.includes('reasoning'))
    throw new AppError(
      AiErrorCode.MODEL_CAPABILITY_MISSING,
      `Model ${model.id} does not reason: thinking cannot be enabled`,
      { param: 'thinking' },
    );
}

/**
 * Prompt tokens the provider is sent beyond the messages' text, estimated as the hold counts
 * text (textTokens) over their JSON: the client tools' definitions, the response format's schema, and the tool
 * calls of earlier assistant turns. Added to the hold (the worst case) and to the estimate of a
 * cut stream.
 */
export function clientToolTokens(
  options: { clientTools?: ClientTools; responseFormat?: ResponseFormat },
  messages: ProviderMessage[],
): number {
  let json = '';
  if (options.clientTools) json += JSON.stringify(options.clientTools);
  if (options.responseFormat) json += JSON.stringify(options.responseFormat);
  for (const m of messages) if (m.toolCalls) json += JSON.stringify(m.toolCalls);
  return textTokens(json);
}
