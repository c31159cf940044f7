import { performance } from 'node:perf_hooks';

/**
 * Shapes of a generation record (one model call): what the AI module hands the settlement to
 * write (`GenerationInput`, read by name by `settle_hold`, migration Generations) and what the
 * trace of a call collects on its way (`CallTrace`).
 */

/** One upstream a call tried, in order: `error` (and the upstream's HTTP `status`) when it failed. */
export interface TriedUpstream {
  /** The upstream's name, or `env:<provider>` for the one built from the environment. */
  upstream: string;
  /** The model id sent to it. */
  model: string;
  status?: number;
  /** The failure's message (at most 300 characters); absent: it answered. */
  error?: string;
}

/** What a call collects between admission and settlement. */
export interface CallTrace {
  /** performance.now() at admission. */
  startedAt: number;
  /** performance.now() when the first streamed chunk came; absent for a whole reply. */
  firstTokenAt?: number;
  /** The upstreams tried, in order (every retry's too); the last without `error` answered. */
  tried: TriedUpstream[];
  /** The reply was streamed. */
  streamed?: boolean;
}

/** A call's trace, started now (at its admission). */
export function newTrace(): CallTrace {
  return { startedAt: performance.now(), tried: [] };
}

/**
 * A generation record as the settlement writes it (each key a `generations` column); `cost` and
 * `userId` come from the settlement itself (the credits charged, the caller).
 */
export interface GenerationInput {
  /** The request id the hold was made for (also the CONSUMPTION entry's `consumption:<id>`). */
  id: string;
  keyId: string | null;
  teamId: string | null;
  /** The chat the exchange was saved to; null when not saved. */
  chatId: string | null;
  requestedModel: string;
  /** The answering model's catalogue id. */
  model: string;
  /** The upstream that answered; null when none is known. */
  upstream: string | null;
  attempts: TriedUpstream[];
  promptTokens: number;
  completionTokens: number;
  cachedTokens: number | null;
  cacheWriteTokens: number | null;
  reasoningTokens: number | null;
  /** The tariff the call was charged at (prices per kind of token, version, markup). */
  prices: object | null;
  /** True when the tokens are our estimate (a cut stream without reported usage). */
  usageEstimated: boolean;
  streamed: boolean;
  /** Milliseconds from admission to settlement. */
  latencyMs: number;
  /** Milliseconds from admission to the first streamed chunk; null for a whole reply. */
  firstTokenMs: number | null;
  /** Why the reply ended (`stop`, `length`, `tool_calls`, …; `cut` for a cut stream). */
  finishReason: string | null;
}

/** `tried`'s last upstream without an error: the one that answered. */
export function answeringUpstream(tried: readonly TriedUpstream[]): string | null {
  for (let i = tried.length - 1; i >= 0; i--) if (!tried[i].error) return tried[i].upstream;
  return null;
}
