import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { pluginsConfig } from '../plugins.config';
import { extname, join } from 'node:path';
import { ToolWorkerPool } from './tool-worker-pool';

/** Most calculations waiting for a calculator worker; one more is refused at once. */
const MAX_WAITING = 32;
/** Longest start of a calculator worker (loading mathjs), ms. */
const START_LIMIT_MS = 60_000;
/**
 * The argument calculator.worker.ts answers to (its CALCULATOR_WORKER_ARG; not imported, since
 * importing that module loads mathjs into this process).
 */
const WORKER_ARG = '--tool-worker=calculator';

/**
 * The calculator's worker processes (calculator.worker.ts): at most BUILTIN_TOOL_WORKERS, each
 * calculation stopped after BUILTIN_TOOL_TIMEOUT_MS or past BUILTIN_TOOL_MEMORY_MB of heap.
 * Started on the first calculation and kept warm; terminated at application shutdown.
 */
@Injectable()
export class CalculatorWorkers implements OnApplicationShutdown {
  private readonly pool: ToolWorkerPool<string, string>;

  constructor(@Inject(pluginsConfig.KEY) plugins: ConfigType<typeof pluginsConfig>) {
    const { builtinTimeoutMs, builtinMemoryMb, builtinWorkers } = plugins;
    this.pool = new ToolWorkerPool({
      // The sibling module: `.js` when built, the `.ts` source when the tests run the sources.
      file: join(__dirname, `calculator.worker${extname(__filename)}`),
      args: [WORKER_ARG],
      size: builtinWorkers,
      timeoutMs: builtinTimeoutMs,
      memoryMb: builtinMemoryMb,
      maxWaiting: MAX_WAITING,
      startLimitMs: START_LIMIT_MS,
      label: 'calculation',
    });
  }

  /**
   * The value of `expression` as text (see `calculate` in calculator.worker.ts). Rejects with
   * ToolFailure on a refused or failed expression, past the time or memory limit, when too many
   * calculations wait, or when `signal` aborts.
   */
  evaluate(expression: string, signal?: AbortSignal): Promise<string> {
    return this.pool.run(expression, signal);
  }

  onApplicationShutdown(): Promise<void> {
    return this.pool.close();
  }
}
