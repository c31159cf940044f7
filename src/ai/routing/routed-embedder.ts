import type {
  RoutedModel,
  UpstreamProvider,
  UpstreamRouting,
  UpstreamTarget,
} from '../../upstreams/upstream-router.types';
import { estimateTokens } from '../../credits/pricing';
import type { EmbeddingProvider, EmbedRequest, Embeddings } from '../providers/model-provider';
import { firstAnswer, type Unanswered } from './upstream-attempts';

/**
 * The embedding adapter speaking an upstream's protocol (`openai-compatible`: OpenAI's);
 * undefined for a protocol without an embeddings API.
 */
export type ProtocolEmbedders = (protocol: UpstreamProvider) => EmbeddingProvider | undefined;

/**
 * Embeddings of one model over the upstreams the router gives for it, with the same rules as
 * RoutedProvider's chat calls (there are no fallback models for embeddings):
 *
 * - A retryable failure (network, timeout, 408, 429, 5xx) is reported `retryable` and the next
 *   upstream is tried at once, without backoff.
 * - 401/403/404 are reported `misconfigured` and thrown: the next upstream is not tried.
 * - Any other failure (400: the request is the caller's; our own abort) is thrown without
 *   reporting the upstream.
 * - An upstream the router does not admit (at its `rpm`/`tpm` ceiling) is skipped without a
 *   call; when every upstream was skipped so, UpstreamsBusyError (429) is thrown. The texts'
 *   estimated tokens (spec Limits 2: characters / 4) count toward the answering one's `tpm`.
 * - When every upstream failed, the last error is thrown (the caller's `withRetry` may try the
 *   whole list again with its backoff). A model without any upstream is embedded without a
 *   target (the environment's configuration), which throws "not configured" as before routing.
 */
export class RoutedEmbedder implements EmbeddingProvider {
  constructor(
    private readonly router: UpstreamRouting,
    private readonly model: RoutedModel,
    /** The adapter of the model's provider: the environment's client, and the default protocol. */
    private readonly embedder: EmbeddingProvider,
    /** Absent: every upstream is called through the model's adapter. */
    private readonly protocols?: ProtocolEmbedders,
  ) {}

  /**
   * One vector per text, in order, from the first upstream that answers; `target` is ignored
   * (the router picks them). Throws ProviderError as described on the class, or Error when an
   * upstream's protocol has no embeddings API.
   */
  async embed(req: EmbedRequest): Promise<Embeddings> {
    const targets = await this.router.candidates(this.model);
    if (!targets.length) return this.embedder.embed(req);
    const left: Unanswered = {};
    const answered = await firstAnswer(
      this.router,
      this.model.providerId,
      targets,
      (target) => this.adapterFor(target).embed(req, target),
      left,
    );
    if (!answered) throw left.last ?? left.busy;
    this.router.used(
      answered.target,
      estimateTokens(req.texts.map((content) => ({ role: 'user', content }))),
    );
    return answered.value;
  }

  private adapterFor(target: UpstreamTarget): EmbeddingProvider {
    if (!this.protocols) return this.embedder;
    const adapter = this.protocols(target.provider);
    if (!adapter) throw new Error(`Upstream protocol ${target.provider} has no embeddings API`);
    return adapter;
  }
}
