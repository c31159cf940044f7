import { type ChildProcess, fork } from 'node:child_process';
import { once } from 'node:events';
import { extname } from 'node:path';
import { ToolFailure } from '../tool-result';

/** How a pool runs its workers. */
export interface ToolWorkerPoolOptions {
  /** Absolute path of the worker module (`.js` when built; `.ts` from the sources in tests). */
  file: string;
  /** The worker's command-line arguments (how the module knows it runs as a worker). */
  args: string[];
  /** Most workers alive at once (started on demand, kept warm once started). */
  size: number;
  /** Longest run of one job in a worker, ms; then the worker is terminated. */
  timeoutMs: number;
  /** Heap limit of each worker (V8 old generation), MB; past it the worker ends. */
  memoryMb: number;
  /** Most jobs waiting for a worker; one more is refused at once. */
  maxWaiting: number;
  /** Longest start of a worker (loading its modules), ms. */
  startLimitMs: number;
  /** What a job is called in messages to the model ("calculation"). */
  label: string;
}

/**
 * The worker's side of the protocol: it posts `{ ready: true }` once loaded, then answers each
 * `{ id, input }` with `{ id, ok: true, value }` or `{ id, ok: false, message }`.
 */
type Answer<O> =
  { ready: true } | { id: number; ok: true; value: O } | { id: number; ok: false; message: string };

interface Job<I, O> {
  id: number;
  input: I;
  resolve(value: O): void;
  reject(error: Error): void;
  signal?: AbortSignal;
  onAbort?: () => void;
}

interface Slot<I, O> {
  worker: ChildProcess;
  ready: boolean;
  job?: Job<I, O>;
  timer?: NodeJS.Timeout;
}

/**
 * Runs jobs in worker processes, each job bounded in time (`timeoutMs`: the worker is killed)
 * and memory (`memoryMb`: the worker's V8 ends it), so no job can hold the service's event loop
 * or grow its memory. Workers start on first use and stay warm; one that ended is replaced on the
 * next job. `run` rejects with ToolFailure (timeout, memory, busy, aborted, the worker's own
 * refusal); `close` kills every worker (call it at shutdown).
 *
 * Processes rather than worker threads: a thread's `resourceLimits` heap limit is overridden
 * when the service runs with `--max-old-space-size` (in NODE_OPTIONS too), and a thread past the
 * process's limit aborts the whole service; a process has its own heap and its own limit.
 */
export class ToolWorkerPool<I, O> {
  private readonly slots = new Set<Slot<I, O>>();
  private readonly waiting: Job<I, O>[] = [];
  private nextId = 1;
  private closed = false;

  constructor(private readonly options: ToolWorkerPoolOptions) {}

  /** The worker's value for `input`; rejects with ToolFailure as the class states. */
  run(input: I, signal?: AbortSignal): Promise<O> {
    const { label, maxWaiting } = this.options;
    if (this.closed) return Promise.reject(new ToolFailure(`The ${label} service is stopping`));
    if (signal?.aborted) return Promise.reject(new ToolFailure(`The ${label} was cancelled`));
    if (this.waiting.length >= maxWaiting)
      return Promise.reject(new ToolFailure(`Too many ${label}s at once; try again shortly`));
    return new Promise<O>((resolve, reject) => {
      const job: Job<I, O> = { id: this.nextId++, input, resolve, reject, signal };
      job.onAbort = () => this.cancel(job);
      signal?.addEventListener('abort', job.onAbort, { once: true });
      this.waiting.push(job);
      this.pump();
    });
  }

  /** Terminates every worker and refuses the waiting jobs; later runs are refused. */
  async close(): Promise<void> {
    this.closed = true;
    const message = `The ${this.options.label} service is stopping`;
    for (const job of this.waiting.splice(0)) this.settle(job, { error: new ToolFailure(message) });
    await Promise.all([...this.slots].map((slot) => this.stop(slot, message)));
  }

  /** Gives waiting jobs to idle ready workers, starting workers while below `size`. */
  private pump(): void {
    if (this.closed) return;
    for (const slot of this.slots) {
      if (!this.waiting.length) return;
      if (slot.ready && !slot.job) this.dispatch(slot, this.waiting.shift()!);
    }
    const starting = [...this.slots].filter((s) => !s.ready).length;
    if (this.waiting.length > starting && this.slots.size < this.options.size) this.start();
  }

  private dispatch(slot: Slot<I, O>, job: Job<I, O>): void {
    const { timeoutMs, label } = this.options;
    slot.job = job;
    slot.timer = setTimeout(
      () => void this.stop(slot, `The ${label} was stopped: it ran longer than ${timeoutMs} ms`),
      timeoutMs,
    );
    slot.worker.send({ id: job.id, input: job.input });
  }

  private start(): void {
    const { file, args, memoryMb, startLimitMs, label } = this.options;
    // Node runs a `.ts` source (the tests) by stripping its types, and warns that the package
    // declares no module type; built `.js` files need nothing.
    const quiet = extname(file) === '.ts' ? ['--disable-warning=MODULE_TYPELESS_PACKAGE_JSON'] : [];
    // Not this process's flags or NODE_OPTIONS: the worker's heap limit is its own.
    const env = { ...process.env };
    delete env.NODE_OPTIONS;
    const worker = fork(file, args, {
      execArgv: [`--max-old-space-size=${memoryMb}`, ...quiet],
      env,
      // A worker past its heap limit prints V8's report; the pool tells the model instead.
      stdio: ['ignore', 'ignore', 'ignore', 'ipc'],
      serialization: 'json',
    });
    const slot: Slot<I, O> = { worker, ready: false };
    slot.timer = setTimeout(
      () => void this.stop(slot, `The ${label} service did not start`),
      startLimitMs,
    );
    this.slots.add(slot);
    worker.on('message', (answer: Answer<O>) => this.answered(slot, answer));
    worker.on('error', () => this.lost(slot, `The ${label} failed unexpectedly`));
    worker.on('exit', (code, signal) =>
      this.lost(
        slot,
        // V8 aborts a process out of heap.
        signal === 'SIGABRT' || code === 134
          ? `The ${label} was stopped: it needed more than ${memoryMb} MB of memory`
          : `The ${label} failed unexpectedly`,
      ),
    );
    // Never what keeps the service alive: close() ends workers at shutdown.
    worker.unref();
    worker.channel?.unref();
  }

  private answered(slot: Slot<I, O>, answer: Answer<O>): void {
    clearTimeout(slot.timer);
    if ('ready' in answer) {
      slot.ready = true;
    } else if (slot.job?.id === answer.id) {
      const job = slot.job;
      slot.job = undefined;
      this.settle(
        job,
        answer.ok ? { value: answer.value } : { error: new ToolFailure(answer.message) },
      );
    }
    this.pump();
  }

  /** The worker ended (error, exit, terminate): its job fails with `message`. */
  private lost(slot: Slot<I, O>, message: string): void {
    if (!this.slots.delete(slot)) return;
    clearTimeout(slot.timer);
    if (slot.job) this.settle(slot.job, { error: new ToolFailure(message) });
    else if (!slot.ready) {
      // A worker that cannot start would fail again: the jobs waiting on it fail now.
      const failed = `The ${this.options.label} service could not start`;
      for (const job of this.waiting.splice(0))
        this.settle(job, { error: new ToolFailure(failed) });
    }
    this.pump();
  }

  private async stop(slot: Slot<I, O>, message: string): Promise<void> {
    const { worker } = slot;
    const exited =
      worker.exitCode === null && worker.signalCode === null ? once(worker, 'exit') : null;
    worker.kill('SIGKILL');
    this.lost(slot, message);
    await exited;
  }

  /** A waiting job leaves the queue; a running one stops its worker. */
  private cancel(job: Job<I, O>): void {
    const at = this.waiting.indexOf(job);
    if (at >= 0) {
      this.waiting.splice(at, 1);
      this.settle(job, { error: new ToolFailure(`The ${this.options.label} was cancelled`) });
      return;
    }
    for (const slot of this.slots)
      if (slot.job === job) void this.stop(slot, `The ${this.options.label} was cancelled`);
  }

  private settle(job: Job<I, O>, outcome: { value: O } | { error: Error }): void {
    if (job.onAbort) job.signal?.removeEventListener('abort', job.onAbort);
    if ('error' in outcome) job.reject(outcome.error);
    else job.resolve(outcome.value);
  }
}
