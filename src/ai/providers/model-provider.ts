import type { ChatMessageInput } from '../../credits/pricing';
import type { ClientTools, ResponseFormat } from './client-tools';
import type { UpstreamTarget } from '../../upstreams/upstream-router.types';
import type { TriedUpstream } from '../../generations/generation.types';
import type { FinishReason, TokenUsage, ToolCall, ToolDefinition } from '../../models/call.types';

/** An image sent with a message: its sniffed type and its bytes in base64. */
export interface ImageInput {
  /** `image/png`, `image/jpeg`, `image/webp` or `image/gif`. */
  mediaType: string;
  /** Standard base64 of the file's bytes. */
  data: string;
}

/**
 * One message as the adapters see it. `content` is the text (priced by spec Limits 2); `images`
 * come after it on user messages; an assistant message may carry the tool calls it made, and a
 * `tool` message answers one call (`toolCall`: id, name, and whether the tool succeeded).
 */
export interface ProviderMessage extends ChatMessageInput {
  role: 'system' | 'user' | 'assistant' | 'tool';
  images?: ImageInput[];
  toolCalls?: ToolCall[];
  toolCall?: { id: string; name: string; ok: boolean };
}

export interface GenerateRequest {
  /** Catalogue model id, e.g. `gpt-4o-mini`; an upstream target's `upstreamModel` replaces it. */
  model: string;
  /** Roles `system`, `user`, `assistant`, `tool`; each adapter maps them to its own API. */
  messages: ProviderMessage[];
  /** Tools the model may call; none when absent or empty (the plugins' tool loop). */
  tools?: ToolDefinition[];
  /** The client's tools (wire protocols): `tools` holds their definitions, this the rules. */
  clientTools?: ClientTools;
  /** The answer's format (JSON object, or JSON following a schema). */
  responseFormat?: ResponseFormat;
  /** Upper bound on completion tokens (spec Limits 4: at most 1000). */
  maxTokens: number;
  /** Sampling temperature, 0..2. */
  temperature?: number;
  /** Nucleus sampling, 0..1. */
  topP?: number;
  /** −2..2 (OpenAI, Gemini). */
  presencePenalty?: number;
  /** −2..2 (OpenAI, Gemini). */
  frequencyPenalty?: number;
  /** Stop sequences, at most 4. */
  stop?: string[];
  /**
   * Reasoning models: thinking tokens allowed on top of `maxTokens`; the adapter raises the
   * provider's output limit by this much and sets its thinking budget to it.
   */
  reasoningBudget?: number;
  /** Aborts the upstream HTTP request (client disconnect). */
  signal?: AbortSignal;
  /** Where the routed provider records the upstreams it tries (adapters ignore it). */
  trace?: { tried: TriedUpstream[] };
}

export interface GenerateResult {
  text: string;
  /** Normalised usage; the basis of the charge. */
  usage: TokenUsage;
  /** Tools the model asked to run, in order; the reply is not final while there are some. */
  toolCalls?: ToolCall[];
  /** Why the reply ended (`stop` when the provider says nothing more precise). */
  finishReason?: FinishReason;
  /** Catalogue id of the model that answered (set by RoutedProvider; a fallback's when one did). */
  modelId?: string;
}

/**
 * One piece of a streamed reply: a text delta, and/or the usage reported so far by the
 * provider (cumulative; the last one seen is the one charged).
 */
export interface StreamChunk {
  text?: string;
  usage?: TokenUsage;
  /** A complete tool call (arguments assembled from the deltas), yielded once it is whole. */
  toolCall?: ToolCall;
  /** Why the reply ended, on the chunk that says so. */
  finishReason?: FinishReason;
  /** On the first chunk: catalogue id of the model answering (set by RoutedProvider). */
  modelId?: string;
}

/**
 * One model SDK behind the provider strategy. Each adapter turns its SDK's errors into
 * ProviderError (with the upstream HTTP status) and normalises its own usage shape.
 */
export interface ModelProvider {
  /**
   * One whole reply. `target`: the upstream to call (its base URL, key and model id); without
   * one, the provider's environment configuration.
   */
  generate(request: GenerateRequest, target?: UpstreamTarget): Promise<GenerateResult>;
  /**
   * Streams the reply (from `target`, as `generate`). Errors before the first chunk (e.g. an
   * upstream 429) are thrown from the first `next()`, so callers can retry until the first chunk
   * arrives.
   */
  stream(request: GenerateRequest, target?: UpstreamTarget): AsyncIterable<StreamChunk>;
}

/** Texts to embed in one upstream call (chat search, `/v1/embeddings`). */
export interface EmbedRequest {
  /**
   * Catalogue embedding model id, e.g. `text-embedding-3-small`; an upstream target's
   * `upstreamModel` replaces it.
   */
  model: string;
  texts: string[];
  /**
   * Vector length asked of the provider (OpenAI `dimensions`, Gemini `outputDimensionality`);
   * undefined: the model's own.
   */
  dimensions?: number;
  /**
   * Stored messages or a search query; Gemini tunes its vectors to the task. Undefined (a
   * `/v1` call): no task is named.
   */
  purpose?: 'document' | 'query';
  signal?: AbortSignal;
}

/** What an embedding call answers: one vector per text, in order, and the tokens reported. */
export interface Embeddings {
  vectors: number[][];
  /** The input tokens the provider reported (OpenAI `usage.prompt_tokens`); absent: none. */
  promptTokens?: number;
}

/**
 * An SDK that turns texts into vectors (OpenAI, Gemini). Returns one vector per text, in order,
 * and the tokens the provider reported. Throws ProviderError like `generate`.
 */
export interface EmbeddingProvider {
  /**
   * `target`: the upstream to call (its base URL, key and model id); without one, the provider's
   * environment configuration.
   */
  embed(request: EmbedRequest, target?: UpstreamTarget): Promise<Embeddings>;
}

/** An upstream failure with the upstream HTTP status (undefined for network errors). */
export class ProviderError extends Error {
  constructor(
    readonly providerId: string,
    readonly upstreamStatus: number | undefined,
    message: string,
    /** From the upstream `Retry-After` header, when sent. */
    readonly retryAfterMs?: number,
    /** True when the request was aborted by our own signal (client disconnect). */
    readonly aborted = false,
  ) {
    super(message);
    this.name = 'ProviderError';
  }
}

/**
 * Every upstream that could answer is at its `rpm`/`tpm` ceiling for this clock minute: no call
 * was made. A 429 that the spec's retry does not repeat (the minute will not turn within its
 * backoff); `resetsAt` is the next minute, answered as `Retry-After`.
 */
export class UpstreamsBusyError extends ProviderError {
  constructor(
    providerId: string,
    readonly resetsAt: Date,
  ) {
    super(providerId, 429, 'Every upstream of the model is at its rate ceiling');
    this.name = 'UpstreamsBusyError';
  }
}

/** Parses a `Retry-After` header (seconds or HTTP date) into milliseconds. */
export function retryAfterMs(
  value: string | null | undefined,
  now = Date.now(),
): number | undefined {
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
