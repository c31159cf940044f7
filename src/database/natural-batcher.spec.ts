import { type BatchOutcome, NaturalBatcher } from './natural-batcher';

/** A flush the test answers by hand: each call is recorded with its items and its resolver. */
function controlledFlush<I, R>() {
  const calls: {
    items: readonly I[];
    answer: (outcomes: BatchOutcome<R>[]) => void;
    fail: (err: unknown) => void;
  }[] = [];
  const flush = (items: readonly I[]) =>
    new Promise<BatchOutcome<R>[]>((answer, fail) => calls.push({ items, answer, fail }));
  return { calls, flush };
}

/** Lets every queued promise callback run (no timers involved). */
const settled = async () => {
  for (let i = 0; i < 10; i++) await Promise.resolve();
};

describe('NaturalBatcher', () => {
  it('sends an item at once, before submit returns, when no flush is in flight', async () => {
    const { calls, flush } = controlledFlush<number, number>();
    const b = new NaturalBatcher(flush);
    const result = b.submit(1);
    expect(calls).toHaveLength(1);
    expect(calls[0].items).toEqual([1]);
    calls[0].answer([{ value: 10 }]);
    await expect(result).resolves.toBe(10);
  });

  it('queues items while a flush is in flight and sends them together when it returns', async () => {
    const { calls, flush } = controlledFlush<number, number>();
    const sizes: number[] = [];
    const b = new NaturalBatcher(flush, { onFlush: (n) => sizes.push(n) });
    const results = [1, 2, 3, 4].map((n) => b.submit(n));
    expect(calls.map((c) => c.items)).toEqual([[1]]);
    expect(b.waiting).toBe(3);
    calls[0].answer([{ value: 10 }]);
    await settled();
    expect(calls.map((c) => c.items)).toEqual([[1], [2, 3, 4]]);
    const late = b.submit(5); // arrives while the second flush is in flight
    calls[1].answer([{ value: 20 }, { value: 30 }, { value: 40 }]);
    await settled();
    expect(calls.map((c) => c.items)).toEqual([[1], [2, 3, 4], [5]]);
    calls[2].answer([{ value: 50 }]);
    expect(await Promise.all([...results, late])).toEqual([10, 20, 30, 40, 50]);
    expect(sizes).toEqual([1, 3, 1]);
  });

  it('sends at most maxBatch items per flush, in submission order', async () => {
    const { calls, flush } = controlledFlush<number, number>();
    const b = new NaturalBatcher(flush, { maxBatch: 2 });
    const results = [1, 2, 3, 4, 5, 6].map((n) => b.submit(n));
    for (let i = 0; i < 4; i++) {
      calls[i].answer(calls[i].items.map((n) => ({ value: n * 10 })));
      await settled();
    }
    expect(calls.map((c) => c.items)).toEqual([[1], [2, 3], [4, 5], [6]]);
    expect(await Promise.all(results)).toEqual([10, 20, 30, 40, 50, 60]);
  });

  it('rejects only the item whose outcome is an error; the others get their values', async () => {
    const { calls, flush } = controlledFlush<string, string>();
    const b = new NaturalBatcher(flush);
    const first = b.submit('a');
    const [x, y, z] = ['x', 'y', 'z'].map((s) => b.submit(s));
    calls[0].answer([{ value: 'A' }]);
    await settled();
    const refused = new Error('refused y');
    calls[1].answer([{ value: 'X' }, { error: refused }, { value: 'Z' }]);
    await expect(first).resolves.toBe('A');
    await expect(x).resolves.toBe('X');
    await expect(y).rejects.toBe(refused);
    await expect(z).resolves.toBe('Z');
  });

  it('rejects every item of a flush that fails, then goes on with the next flush', async () => {
    const { calls, flush } = controlledFlush<number, number>();
    const b = new NaturalBatcher(flush);
    const first = b.submit(1);
    const [second, third] = [2, 3].map((n) => b.submit(n));
    const down = new Error('connection lost');
    calls[0].fail(down);
    await expect(first).rejects.toBe(down);
    await settled();
    calls[1].answer([{ value: 20 }]); // wrong count: both items of this flush fail
    await expect(second).rejects.toThrow('1 outcomes for 2 items');
    await expect(third).rejects.toThrow('1 outcomes for 2 items');
    const after = b.submit(4);
    expect(calls).toHaveLength(3);
    calls[2].answer([{ value: 40 }]);
    await expect(after).resolves.toBe(40);
  });

  it('refuses a maxBatch below 1', () => {
    expect(() => new NaturalBatcher(async () => [], { maxBatch: 0 })).toThrow(RangeError);
  });
});
