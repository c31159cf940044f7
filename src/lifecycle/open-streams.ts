/**
 * The streamed replies in flight in this process, so that shutdown can give them
 * SHUTDOWN_GRACE_MS to finish (a drain after the client left included) and then cut them.
 * `streamTo` (src/ai/calls/stream-sinks.ts) registers each stream under its client signal (aborted when
 * the client goes away); each gets its own shutdown cut, which stops the provider call at once,
 * without waiting for a drain: the partial reply is settled and saved.
 */
const open = new Map<AbortController, Promise<void>>();
/** The shutdown cut of each registered stream, by its client signal. */
const cuts = new WeakMap<AbortSignal, AbortSignal>();

/**
 * Registers a stream whose client goes away with `client`; call the returned function once it
 * has ended (settled). Its shutdown cut is `shutdownCutOf(client)`.
 */
export function trackStream(client: AbortSignal): () => void {
  const cut = new AbortController();
  cuts.set(client, cut.signal);
  let ended!: () => void;
  open.set(cut, new Promise<void>((resolve) => (ended = resolve)));
  return () => {
    open.delete(cut);
    ended();
  };
}

/**
 * The signal with which shutdown cuts the stream registered under `client`, after the grace
 * period; undefined for a call that is not a tracked stream (a scheduled task).
 */
export function shutdownCutOf(client: AbortSignal | undefined): AbortSignal | undefined {
  return client && cuts.get(client);
}

/** Streams in flight now. */
export function openStreamCount(): number {
  return open.size;
}

/**
 * Waits up to `graceMs` for the open streams to end, then cuts the rest and waits for them to
 * settle (at most `settleMs` more). Returns how many ended by themselves and how many were cut.
 */
export async function drainStreams(
  graceMs: number,
  settleMs = 10_000,
): Promise<{ finished: number; cut: number }> {
  const total = open.size;
  if (!total) return { finished: 0, cut: 0 };
  await within([...open.values()], graceMs);
  const left = [...open.entries()];
  for (const [cut] of left) cut.abort();
  await within(
    left.map(([, ended]) => ended),
    settleMs,
  );
  return { finished: total - left.length, cut: left.length };
}

/** Resolves when every promise has, or after `ms`: a one-off wait of shutdown, not a schedule. */
async function within(promises: Promise<void>[], ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    Promise.all(promises),
    new Promise<void>((resolve) => (timer = setTimeout(resolve, ms))),
  ]);
  clearTimeout(timer);
}
