import { performance } from 'node:perf_hooks';
import { answeringUpstream, type GenerationInput } from '../../generations/generation.types';
import type { ModelDescriptor } from '../../models/model-catalogue';
import type { TokenUsage } from '../../models/call.types';
import type { Tariff } from '../../prices/tariff';
import type { Admission, Outcome } from '../ai.types';
import type { OpenHold } from '../../credits/credit-holds.service';

/**
 * The generation record of a settled call (written by its settlement, with the credits charged):
 * id = the hold's request id; the requested and answering models; the upstreams tried and the
 * one that answered; the charged tokens by kind and the tariff; `usageEstimated` when the
 * provider reported no usage (a cut stream); latency and time to the first chunk from admission,
 * in milliseconds; why the reply ended (`cut` for a cut stream).
 */
export function generationOf(
  a: Admission,
  outcome: Outcome,
  charged: { model: ModelDescriptor; usage: TokenUsage; tariff: Tariff | undefined },
): GenerationInput {
  const { trace } = a;
  const { usage } = charged;
  const now = performance.now();
  return {
    id: a.hold.requestId,
    keyId: a.hold.keyId ?? null,
    teamId: a.hold.teamId ?? null,
    chatId: a.store ? a.chatId : null,
    requestedModel: a.model.id,
    model: charged.model.id,
    upstream: answeringUpstream(trace.tried),
    attempts: trace.tried,
    promptTokens: usage.promptTokens,
    completionTokens: usage.completionTokens,
    cachedTokens: usage.cachedTokens ?? null,
    cacheWriteTokens: usage.cacheWriteTokens ?? null,
    reasoningTokens: usage.reasoningTokens ?? null,
    prices: charged.tariff ?? null,
    usageEstimated: !outcome.usage,
    streamed: !!trace.streamed,
    latencyMs: Math.round(now - trace.startedAt),
    firstTokenMs:
      trace.firstTokenAt === undefined ? null : Math.round(trace.firstTokenAt - trace.startedAt),
    finishReason: outcome.cut ? 'cut' : (outcome.finishReason ?? 'stop'),
  };
}

/**
 * The generation record of an embeddings call: its prompt tokens (`reported` false: our
 * estimate), the tariff, the latency from `startedAt` (performance.now() at its admission).
 */
export function embeddingGenerationOf(
  hold: OpenHold,
  call: { model: string; tokens: number; reported: boolean; tariff: Tariff; startedAt: number },
): GenerationInput {
  return {
    id: hold.requestId,
    keyId: hold.keyId ?? null,
    teamId: hold.teamId ?? null,
    chatId: null,
    requestedModel: call.model,
    model: call.model,
    upstream: null,
    attempts: [],
    promptTokens: call.tokens,
    completionTokens: 0,
    cachedTokens: null,
    cacheWriteTokens: null,
    reasoningTokens: null,
    prices: call.tariff,
    usageEstimated: !call.reported,
    streamed: false,
    latencyMs: Math.round(performance.now() - call.startedAt),
    firstTokenMs: null,
    finishReason: 'stop',
  };
}
