import type { CallTrace } from '../../generations/generation.types';
import type { AdmitOptions } from '../ai.types';
import type { GenerateRequest, ProviderMessage } from '../providers/model-provider';
import type { ResolvedCall } from './resolved-call';

/**
 * The provider request of an admitted call: the resolved model and parameter values, the
 * reasoning budget, the plugins' or the client's tools, the answer's format, the caller's abort
 * signal, and `trace`, where the routed provider records the upstreams it tries.
 */
export function generateRequestOf(
  call: ResolvedCall,
  messages: ProviderMessage[],
  options: AdmitOptions,
  trace: CallTrace,
): GenerateRequest {
  const { model, values, budget, toolBox } = call;
  return {
    trace,
    model: model.id,
    messages,
    maxTokens: values.maxTokens,
    temperature: values.temperature,
    topP: values.topP,
    presencePenalty: values.presencePenalty,
    frequencyPenalty: values.frequencyPenalty,
    stop: values.stop,
    reasoningBudget: budget || undefined,
    signal: options.signal,
    ...(toolBox ? { tools: toolBox.definitions } : {}),
    ...(options.clientTools
      ? { tools: options.clientTools.tools, clientTools: options.clientTools }
      : {}),
    ...(options.responseFormat ? { responseFormat: options.responseFormat } : {}),
  };
}
