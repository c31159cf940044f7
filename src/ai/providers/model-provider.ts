import type { ChatMessageInput, TokenUsage } from '../../credits/pricing';

export interface GenerateRequest {
  /** Upstream model id, e.g. `gpt-4o-mini`. */
  model: string;
  messages: ChatMessageInput[];
  /** Upper bound on completion tokens (spec Limits 4: 1000). */
  maxTokens: number;
  signal?: AbortSignal;
}

export interface GenerateResult {
  text: string;
  /** Normalised usage; the basis of the charge. */
  usage: TokenUsage;
}

/** One model SDK behind the provider strategy; each adapter normalises its own usage shape. */
export interface ModelProvider {
  generate(request: GenerateRequest): Promise<GenerateResult>;
}

/** An upstream failure, classified by the upstream HTTP status (spec "AI error classification"). */
export class ProviderError extends Error {
  constructor(
    readonly providerId: string,
    readonly upstreamStatus: number | undefined,
    message: string,
  ) {
    super(message);
    this.name = 'ProviderError';
  }
}
