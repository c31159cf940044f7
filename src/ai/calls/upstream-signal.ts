import { shutdownCutOf } from '../../lifecycle/open-streams';
import type { AbortMode } from '../ai.config';

/** How a provider call reacts to its client going away (ABORT_MODE, ABORT_DRAIN_MS). */
export interface AbortPolicy {
  mode: AbortMode;
  /** The longest drain after the client left, in milliseconds. */
  drainMs: number;
}

/** The signal a provider call is sent with, and what became of it. */
export interface UpstreamSignal {
  /** Aborts the provider call; undefined when the call has no client signal. */
  signal?: AbortSignal;
  /** True once the drain bound passed with the reply unfinished (the call was then aborted). */
  drainTimedOut(): boolean;
  /** Clears the drain timer and the listeners; call once the call has ended. */
  dispose(): void;
}

/**
 * The provider call's own signal, given the caller's `client` signal (aborted when the client
 * goes away or a task is cancelled): with `cancel`, it aborts with the client; with `drain`, the
 * call goes on until the reply ends (its usage read), and is aborted only `drainMs` after the
 * client left. Shutdown's cut of a tracked stream (src/lifecycle) aborts it at once in both modes.
 */
export function upstreamSignal(
  client: AbortSignal | undefined,
  policy: AbortPolicy,
): UpstreamSignal {
  if (!client) return { signal: undefined, drainTimedOut: () => false, dispose: () => undefined };
  const upstream = new AbortController();
  const cut = shutdownCutOf(client);
  let timer: NodeJS.Timeout | undefined;
  let timedOut = false;
  const onClient = () => {
    if (policy.mode === 'cancel') return upstream.abort(client.reason);
    timer = setTimeout(() => {
      timedOut = true;
      upstream.abort(client.reason);
    }, policy.drainMs);
    timer.unref();
  };
  const onCut = () => upstream.abort(cut?.reason);
  if (cut?.aborted) onCut();
  else cut?.addEventListener('abort', onCut, { once: true });
  if (client.aborted) onClient();
  else client.addEventListener('abort', onClient, { once: true });
  return {
    signal: upstream.signal,
    drainTimedOut: () => timedOut,
    dispose: () => {
      clearTimeout(timer);
      client.removeEventListener('abort', onClient);
      cut?.removeEventListener('abort', onCut);
    },
  };
}
