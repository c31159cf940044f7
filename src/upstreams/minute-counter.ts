/**
 * Attempts per upstream in the current clock minute, in this process only: what the router
 * compares with an upstream's `rpm`. Each instance (and each worker) counts its own, so with N
 * of them an upstream may see up to N × rpm requests a minute.
 */
export class MinuteCounter {
  private readonly counts = new Map<string, { minute: number; n: number }>();

  /** Counts one attempt on `id` at `now`. */
  hit(id: string, now: Date): void {
    const minute = Math.floor(now.getTime() / 60_000);
    const c = this.counts.get(id);
    if (c && c.minute === minute) c.n++;
    else this.counts.set(id, { minute, n: 1 });
  }

  /** Attempts on `id` in the minute of `now`. */
  count(id: string, now: Date): number {
    const c = this.counts.get(id);
    return c && c.minute === Math.floor(now.getTime() / 60_000) ? c.n : 0;
  }
}
