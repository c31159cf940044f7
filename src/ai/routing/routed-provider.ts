import type { ModelDescriptor } from '../../models/model-catalogue';
import { reasoningBudget } from '../../models/model-catalogue';
import type {
  UpstreamProvider,
  UpstreamRouting,
  UpstreamTarget,
} from '../../upstreams/upstream-router.types';
import {
  type GenerateRequest,
  type GenerateResult,
  type ModelProvider,
  type StreamChunk,
} from '../providers/model-provider';
import { isRetryable } from './retry';
import { firstAnswer, triedUpstream, type Unanswered } from './upstream-attempts';

/** One model a routed call may be answered by, with the adapter of its provider. */
export interface RoutedCandidate {
  model: ModelDescriptor;
  adapter: ModelProvider;
}

/**
 * The adapter speaking an upstream's protocol (`openai-compatible`: OpenAI's), which may differ
 * from the model's provider: an OpenAI-compatible server may serve any family's models.
 */
export type ProtocolAdapters = (protocol: UpstreamProvider) => ModelProvider;

/**
 * The provider of one admission: its models in order (the requested one, then its fallbacks),
 * each over the upstreams the router gives for it.
 *
 * - A retryable failure (network, timeout, 408, 429, 5xx, overloaded) is reported `retryable`
 *   and the next upstream is tried at once, without backoff; when a model's upstreams are used
 *   up, its next fallback model is tried the same way.
 * - 401/403/404 are reported `misconfigured` and thrown: not retried, no fallback.
 * - Any other failure (400: the request is the caller's; our own abort) is thrown without
 *   reporting the upstream.
 * - Streams are routed only until their first chunk; after it, a failure ends the stream.
 * - An upstream the router does not admit (at its `rpm`/`tpm` ceiling) is skipped without a
 *   call; when every upstream was skipped so and none failed, UpstreamsBusyError (429) is thrown.
 *   The tokens of each answer (a stream's as its usage arrives) are counted toward `tpm`.
 * - When every candidate failed, the last error is thrown (the caller's `withRetry` may try the
 *   whole list again with its backoff). A model without any upstream is called without a target
 *   (the environment's configuration), which throws "not configured" as before routing.
 *
 * Results and first chunks carry `modelId`, the catalogue id of the model that answered.
 */
export class RoutedProvider implements ModelProvider {
  constructor(
    private readonly router: UpstreamRouting,
    private readonly candidates: RoutedCandidate[],
    /** Absent: every upstream is called through its model's adapter. */
    private readonly protocols?: ProtocolAdapters,
  ) {}

  async generate(req: GenerateRequest): Promise<GenerateResult> {
    const opened = await this.route(req, (adapter, request, target) =>
      adapter.generate(request, target),
    );
    if (opened.target) this.router.used(opened.target, tokensOf(opened.value.usage));
    return { ...opened.value, modelId: opened.modelId };
  }

  async *stream(req: GenerateRequest): AsyncGenerator<StreamChunk> {
    const opened = await this.route(req, async (adapter, request, target) => {
      const iterator = adapter.stream(request, target)[Symbol.asyncIterator]();
      return { iterator, first: await iterator.next() };
    });
    const { iterator, first } = opened.value;
    // Usage is cumulative: each report adds what grew since the last one toward `tpm`.
    let counted = 0;
    const count = (chunk: StreamChunk) => {
      if (!opened.target || !chunk.usage) return;
      const total = tokensOf(chunk.usage);
      if (total > counted) this.router.used(opened.target, total - counted);
      counted = Math.max(counted, total);
    };
    if (first.done) return;
    count(first.value);
    yield { ...first.value, modelId: opened.modelId };
    for (let r = await iterator.next(); !r.done; r = await iterator.next()) {
      count(r.value);
      yield r.value;
    }
  }

  /**
   * Tries `call` on each model's upstreams in order until one succeeds (see the class rules);
   * the value, the catalogue id of the model that gave it and the upstream that answered.
   */
  private async route<T>(
    req: GenerateRequest,
    call: (adapter: ModelProvider, request: GenerateRequest, target?: UpstreamTarget) => Promise<T>,
  ): Promise<{ value: T; modelId: string; target?: UpstreamTarget }> {
    const left: Unanswered = { tried: req.trace?.tried };
    for (const [i, { model, adapter }] of this.candidates.entries()) {
      const request = i === 0 ? req : requestFor(req, model);
      const targets = await this.router.candidates({ id: model.id, providerId: model.providerId });
      if (!targets.length) {
        // No upstream at all: the adapter's environment client says "not configured" (retryable,
        // like before routing), and the next model may still answer.
        const env = `env:${model.providerId}`;
        try {
          const value = await call(adapter, request);
          left.tried?.push(triedUpstream(env, request.model));
          return { value, modelId: model.id };
        } catch (err) {
          left.tried?.push(triedUpstream(env, request.model, err));
          if (!isRetryable(err)) throw err;
          left.last = err;
          continue;
        }
      }
      const answered = await firstAnswer(
        this.router,
        model.providerId,
        targets,
        (target) => call(this.protocols?.(target.provider) ?? adapter, request, target),
        left,
      );
      if (answered) return { ...answered, modelId: model.id };
    }
    throw left.last ?? left.busy;
  }
}

/** The request as a fallback model takes it: its own id and reasoning budget. */
function requestFor(req: GenerateRequest, model: ModelDescriptor): GenerateRequest {
  return { ...req, model: model.id, reasoningBudget: reasoningBudget(model) || undefined };
}

/** The tokens of an answer as upstreams count them per minute: prompt plus completion. */
function tokensOf(usage: { promptTokens: number; completionTokens: number }): number {
  return usage.promptTokens + usage.completionTokens;
}
