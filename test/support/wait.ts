/** Polls `check` every 20 ms until it holds or `ms` pass; resolves with whether it held. */
export async function waitFor(
  check: () => boolean | Promise<boolean>,
  ms = 3000,
): Promise<boolean> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 20));
  }
  return check();
}
