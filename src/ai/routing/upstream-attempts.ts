import { performance } from 'node:perf_hooks';
import type {
  UpstreamOutcome,
  UpstreamRouting,
  UpstreamTarget,
} from '../../upstreams/upstream-router.types';
import { ProviderError, UpstreamsBusyError } from '../providers/model-provider';
import { isRetryable } from './retry';
import type { TriedUpstream } from '../../generations/generation.types';

/** Upstream statuses that say the upstream itself is set up wrong (key, access, model id). */
const MISCONFIGURED = new Set([401, 403, 404]);

/** Why no upstream answered so far: the last retryable failure, the soonest ceiling refusal. */
export interface Unanswered {
  last?: unknown;
  busy?: UpstreamsBusyError;
  /** Where each upstream called is recorded, in order (the call's generation record). */
  tried?: TriedUpstream[];
}

/** An upstream tried, for the generation record: its failure's status and message when it failed. */
export function triedUpstream(upstream: string, model: string, err?: unknown): TriedUpstream {
  if (err === undefined) return { upstream, model };
  const status = err instanceof ProviderError ? err.upstreamStatus : undefined;
  const message = err instanceof Error ? err.message : String(err);
  return { upstream, model, ...(status ? { status } : {}), error: message.slice(0, 300) };
}

/**
 * Tries `call` on each of `targets` in order, the rules every routed call (chat, embeddings)
 * follows:
 * - an upstream the router does not admit (at its `rpm`/`tpm` ceiling) is skipped without a
 *   call, the soonest reset kept in `left.busy`;
 * - a retryable failure (network, timeout, 408, 429, 5xx, overloaded) is reported `retryable`,
 *   kept in `left.last`, and the next upstream is tried at once, without backoff;
 * - 401/403/404 are reported `misconfigured` and thrown; any other failure (a 400, our own
 *   abort) is thrown without reporting;
 * - a success is reported `ok`.
 * Answers the value and the upstream that gave it, or undefined when none did (see `left`).
 */
export async function firstAnswer<T>(
  router: UpstreamRouting,
  providerId: string,
  targets: UpstreamTarget[],
  call: (target: UpstreamTarget) => Promise<T>,
  left: Unanswered,
): Promise<{ value: T; target: UpstreamTarget } | undefined> {
  for (const target of targets) {
    const admission = router.admit(target);
    if (!admission.admitted) {
      if (!left.busy || admission.resetsAt < left.busy.resetsAt)
        left.busy = new UpstreamsBusyError(providerId, admission.resetsAt);
      continue;
    }
    const started = performance.now();
    try {
      const value = await call(target);
      left.tried?.push(triedUpstream(target.name, target.upstreamModel));
      await router.report(target, { kind: 'ok', latencyMs: elapsed(started) });
      return { value, target };
    } catch (err) {
      left.tried?.push(triedUpstream(target.name, target.upstreamModel, err));
      const outcome = outcomeOf(err, elapsed(started));
      if (outcome) await router.report(target, outcome);
      if (outcome?.kind !== 'retryable') throw err;
      left.last = err;
    }
  }
  return undefined;
}

/**
 * What the router should learn of a failed attempt: retryable, misconfigured, or nothing (a bad
 * request, our own abort, or an error that is not the provider's).
 */
export function outcomeOf(err: unknown, latencyMs: number): UpstreamOutcome | undefined {
  if (!(err instanceof ProviderError) || err.aborted) return undefined;
  const status = err.upstreamStatus;
  if (isRetryable(err) || status === 408)
    return {
      kind: 'retryable',
      status,
      ...(err.retryAfterMs !== undefined ? { retryAfterMs: err.retryAfterMs } : {}),
      message: err.message,
      latencyMs,
    };
  if (status !== undefined && MISCONFIGURED.has(status))
    return { kind: 'misconfigured', status, message: err.message, latencyMs };
  return undefined;
}

function elapsed(started: number): number {
  return Math.round(performance.now() - started);
}
