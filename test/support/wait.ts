/** Bumped after each test, so the waits a finished (timed-out) test left behind stop polling. */
let generation = 0;
if (typeof afterEach === 'function') afterEach(() => void generation++);

/**
 * Polls `check` every `everyMs` until it holds; resolves true then. Without `ms`, nothing but the
 * calling test's timeout bounds the wait: a busy machine makes it slower, never failing. With
 * `ms`, resolves with the last check's result after that long (for a caller that reports its
 * own failure past a budget far above the normal time). Stops, resolving false, once the test
 * that started it has ended.
 */
export async function waitFor(
  check: () => boolean | Promise<boolean>,
  ms = Infinity,
  everyMs = 20,
): Promise<boolean> {
  const until = Date.now() + ms;
  const test = generation;
  while (Date.now() < until && generation === test) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, everyMs).unref());
  }
  return generation === test && check();
}
