import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ToolFailure } from '../tool-result';
import { CalculatorWorkers } from './calculator-workers';
import { ToolWorkerPool, type ToolWorkerPoolOptions } from './tool-worker-pool';
import type { PluginsConfig } from '../plugins.config';

// A worker speaking the pool's protocol: `echo:<text>` answers the text, `spin` never returns,
// `allocate` grows its heap until V8 stops it, `refuse` answers a failure.
const WORKER = `
process.on('message', ({ id, input }) => {
  if (input === 'spin') for (;;);
  if (input === 'allocate') { const kept = []; for (;;) kept.push(new Array(1e6).fill(kept.length + 0.5)); }
  if (input === 'refuse') return process.send({ id, ok: false, message: 'no' });
  process.send({ id, ok: true, value: input.slice(5) });
});
process.on('disconnect', () => process.exit(0));
process.send({ ready: true });
`;

describe('ToolWorkerPool: each job bounded in time and memory, the event loop free', () => {
  const dir = mkdtempSync(join(tmpdir(), 'tool-worker-'));
  const file = join(dir, 'test.worker.js');
  writeFileSync(file, WORKER);
  const pools: ToolWorkerPool<string, string>[] = [];
  const pool = (options: Partial<ToolWorkerPoolOptions> = {}) => {
    const p = new ToolWorkerPool<string, string>({
      file,
      args: [],
      size: 1,
      timeoutMs: 1000,
      memoryMb: 32,
      maxWaiting: 4,
      startLimitMs: 60_000,
      label: 'job',
      ...options,
    });
    pools.push(p);
    return p;
  };
  afterAll(async () => {
    await Promise.all(pools.map((p) => p.close()));
    rmSync(dir, { recursive: true, force: true });
  });

  it("answers a job's value or its refusal, several on one warm worker", async () => {
    const p = pool();
    await expect(p.run('echo:a')).resolves.toBe('a');
    await expect(p.run('refuse')).rejects.toThrow(new ToolFailure('no'));
    await expect(Promise.all([p.run('echo:b'), p.run('echo:c')])).resolves.toEqual(['b', 'c']);
  });

  it('stops a job past its time; the event loop ran meanwhile; the next job gets a new worker', async () => {
    const p = pool();
    await p.run('echo:warm');
    const events: string[] = [];
    const spin = p.run('spin').catch((e: Error) => events.push(`stopped: ${e.message}`));
    await new Promise<void>((resolve) => setImmediate(resolve));
    events.push('event loop');
    await spin;
    expect(events).toEqual([
      'event loop',
      'stopped: The job was stopped: it ran longer than 1000 ms',
    ]);
    await expect(p.run('echo:again')).resolves.toBe('again');
  });

  it('stops a job past its memory without growing this heap', async () => {
    const p = pool({ timeoutMs: 600_000 });
    await p.run('echo:warm');
    const before = process.memoryUsage().heapUsed;
    await expect(p.run('allocate')).rejects.toThrow(
      'The job was stopped: it needed more than 32 MB of memory',
    );
    expect(process.memoryUsage().heapUsed - before).toBeLessThan(100 * 1024 * 1024);
    await expect(p.run('echo:after')).resolves.toBe('after');
  });

  it('cancels on abort, waiting or running; refuses past maxWaiting; close refuses the rest', async () => {
    const p = pool({ maxWaiting: 2, timeoutMs: 600_000 });
    await p.run('echo:warm');
    const running = new AbortController();
    const spin = p.run('spin', running.signal);
    const queued = new AbortController();
    const waiting = p.run('echo:never', queued.signal);
    const last = p.run('echo:later');
    await expect(p.run('echo:one too many')).rejects.toThrow('Too many jobs at once');
    queued.abort();
    await expect(waiting).rejects.toThrow('The job was cancelled');
    running.abort();
    await expect(spin).rejects.toThrow('The job was cancelled');
    await expect(last).resolves.toBe('later');

    const stuck = expect(p.run('spin')).rejects.toThrow('The job service is stopping');
    const behind = expect(p.run('echo:behind')).rejects.toThrow('The job service is stopping');
    await p.close();
    await stuck;
    await behind;
    await expect(p.run('echo:closed')).rejects.toThrow('The job service is stopping');
  });

  it('the calculator: an expression that would run for minutes is stopped by its limit', async () => {
    const workers = new CalculatorWorkers({
      builtinTimeoutMs: 5000,
      builtinMemoryMb: 128,
      builtinWorkers: 1,
    } as PluginsConfig);
    try {
      await expect(workers.evaluate('2 + 2')).resolves.toBe('4');
      await expect(workers.evaluate('sinh(10^15)')).rejects.toThrow(
        'The calculation was stopped: it ran longer than 5000 ms',
      );
      await expect(workers.evaluate('exp(1)')).resolves.toMatch(/^2\.718281828459045/);
    } finally {
      await workers.onApplicationShutdown();
    }
  });
});
