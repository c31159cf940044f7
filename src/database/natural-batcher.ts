/** One item's answer from a flush: its value, or its own error (the other items are unaffected). */
export type BatchOutcome<R> = { value: R } | { error: unknown };

/** Options of a NaturalBatcher. */
export interface NaturalBatcherOptions {
  /** Most items in one flush (default 64); the rest wait for the next one. */
  maxBatch?: number;
  /** Called with the size of each flush as it starts (for a metric). */
  onFlush?: (size: number) => void;
}

interface Waiting<I, R> {
  item: I;
  resolve: (value: R) => void;
  reject: (error: unknown) => void;
}

/**
 * Natural batching (as ledgers such as TigerBeetle do it): `submit` sends an item at once when no
 * flush is in flight; items submitted while one is in flight queue, and go together as the next
 * flush the moment it returns. No timer and no added wait: an idle caller's item goes alone and
 * at once, and batches grow only with the load (to `maxBatch`). One flush is in flight at a time.
 *
 * `flush(items)` answers one BatchOutcome per item, in the items' order; each `submit` settles
 * with its own. When `flush` itself throws (or answers the wrong count), every item of that
 * flush is rejected with that error and the next flush goes on.
 */
export class NaturalBatcher<I, R> {
  private readonly queue: Waiting<I, R>[] = [];
  private flushing = false;
  private readonly maxBatch: number;

  constructor(
    private readonly flush: (items: readonly I[]) => Promise<BatchOutcome<R>[]>,
    private readonly options: NaturalBatcherOptions = {},
  ) {
    this.maxBatch = options.maxBatch ?? 64;
    if (!Number.isInteger(this.maxBatch) || this.maxBatch < 1)
      throw new RangeError(`invalid maxBatch: ${this.maxBatch}`);
  }

  /** Items waiting for the flush in flight to return (not counting those in it). */
  get waiting(): number {
    return this.queue.length;
  }

  /**
   * Sends `item` with the next flush (at once when none is in flight, before this returns).
   * Resolves with its value; rejects with its own error or with the flush's.
   */
  submit(item: I): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      if (!this.flushing) void this.drain();
    });
  }

  /** Flushes until the queue is empty; the first flush starts synchronously. */
  private async drain(): Promise<void> {
    this.flushing = true;
    try {
      while (this.queue.length) {
        const batch = this.queue.splice(0, this.maxBatch);
        this.options.onFlush?.(batch.length);
        await this.flushOne(batch);
      }
    } finally {
      this.flushing = false;
    }
  }

  private async flushOne(batch: Waiting<I, R>[]): Promise<void> {
    let outcomes: BatchOutcome<R>[];
    try {
      outcomes = await this.flush(batch.map((w) => w.item));
      if (outcomes.length !== batch.length)
        throw new Error(`flush answered ${outcomes.length} outcomes for ${batch.length} items`);
    } catch (err) {
      for (const w of batch) w.reject(err);
      return;
    }
    batch.forEach((w, i) => {
      const outcome = outcomes[i];
      if ('error' in outcome) w.reject(outcome.error);
      else w.resolve(outcome.value);
    });
  }
}
