/**
 * The contract between the upstreams module (table, admin routes, router, cooldowns) and the AI
 * module (adapters, retries, fallbacks). The AI module asks the router which upstreams may serve
 * a model, calls them in the order given, and reports every attempt's end back; the router never
 * calls a provider itself and never imports the AI module.
 */

/** The wire protocol an upstream speaks; `openai-compatible` (vLLM, Ollama, …) uses OpenAI's adapter. */
export const UPSTREAM_PROVIDERS = ['openai', 'anthropic', 'google', 'openai-compatible'] as const;
export type UpstreamProvider = (typeof UPSTREAM_PROVIDERS)[number];

/**
 * One upstream as the adapters need it to make a call. `apiKey` is opened from its sealed column
 * only here, in memory, and is never logged or returned by any route.
 */
export interface UpstreamTarget {
  /** Row id, or `env:<provider>` for the implicit upstream built from the environment variables. */
  id: string;
  name: string;
  provider: UpstreamProvider;
  /** Base URL for the SDK (OpenAI-style URLs include `/v1`); undefined: the SDK's default host. */
  baseUrl?: string;
  apiKey?: string;
  /** The model id to send upstream: `modelMap[catalogueId]`, else the catalogue id. */
  upstreamModel: string;
  /** Changes whenever the row changes, so adapters can cache one SDK client per (id, version). */
  version: string;
}

/** How an attempt on an upstream ended, as the AI module classified the provider's answer. */
export type UpstreamOutcome =
  | { kind: 'ok'; latencyMs: number }
  /**
   * Connection error, timeout, 408, 429, 5xx, provider "overloaded": worth another upstream.
   * `retryAfterMs` from the upstream's `Retry-After`, when sent.
   */
  | {
      kind: 'retryable';
      status?: number;
      retryAfterMs?: number;
      message: string;
      latencyMs: number;
    }
  /** 401/403/404-type answer: this upstream is misconfigured; marked `failing`, never retried. */
  | { kind: 'misconfigured'; status?: number; message: string; latencyMs: number };

/** The router's answer to `admit`: go, or the upstream's ceiling is reached for this minute. */
export type UpstreamAdmission = { admitted: true } | { admitted: false; resetsAt: Date };

/** A model as the router sees it: the catalogue id and the catalogue's provider. */
export interface RoutedModel {
  id: string;
  providerId: 'openai' | 'anthropic' | 'google';
}

/**
 * The router (UpstreamRouter in src/upstreams implements it; the AI module injects it by the
 * UPSTREAM_ROUTER token).
 */
export interface UpstreamRouting {
  /**
   * Every enabled upstream serving `model`, in the order to try them: by priority (higher first),
   * then at random by weight within a priority group; upstreams cooling down or `failing` after
   * the healthy ones (cooling ones ordered by cooldown end), so a provider with one upstream is
   * still tried. Upstreams at their `rpm`/`tpm` ceiling are listed too (`admit` refuses them).
   * Empty when no upstream serves the model (and no environment upstream exists).
   */
  candidates(model: RoutedModel): Promise<UpstreamTarget[]>;
  /**
   * Records an attempt's end: metrics, state, and cooldowns shared by every instance. Never
   * rejects: a failure to record is logged by the router, and the call goes on.
   */
  report(target: UpstreamTarget, outcome: UpstreamOutcome): Promise<void>;
  /**
   * Whether an attempt on `target` (one of `candidates`' answer) may start now, and if so counts
   * it: an upstream with an `rpm` or `tpm` ceiling that every instance together has reached in
   * the current clock minute is refused until the next minute starts (`resetsAt`).
   * Synchronous, so checking and counting are one step; an upstream without ceilings is always
   * admitted and not counted.
   */
  admit(target: UpstreamTarget): UpstreamAdmission;
  /** Counts an answered call's tokens (prompt + completion) toward `target`'s `tpm`. */
  used(target: UpstreamTarget, tokens: number): void;
  /**
   * Reads the upstream rows again when this process's copy is older than its period (no query
   * otherwise), so the catalogue knows which models the rows serve before one is required.
   */
  refresh?(): Promise<void>;
}

/** Nest injection token of UpstreamRouting. */
export const UPSTREAM_ROUTER = Symbol('UPSTREAM_ROUTER');
