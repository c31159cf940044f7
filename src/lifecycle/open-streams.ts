/**
 * The streamed replies in flight in this process, so that shutdown can give them
 * SHUTDOWN_GRACE_MS to finish and then cut them. `streamTo` (src/ai/stream-sinks.ts) registers
 * each stream's AbortController; aborting it is exactly a client disconnect: the provider call
 * stops and the partial reply is settled and saved.
 */
const open = new Map<AbortController, Promise<void>>();

/** Registers a stream; call the returned function once it has ended (settled). */
export function trackStream(abort: AbortController): () => void {
  let ended!: () => void;
  open.set(abort, new Promise<void>((resolve) => (ended = resolve)));
  return () => {
    open.delete(abort);
    ended();
  };
}

/** Streams in flight now. */
export function openStreamCount(): number {
  return open.size;
}

/**
 * Waits up to `graceMs` for the open streams to end, then aborts the rest and waits for them to
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
  for (const [abort] of left) abort.abort();
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
