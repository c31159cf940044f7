import { performance } from 'node:perf_hooks';

/**
 * Splits a request's time into our own code and the upstream call, for the `Server-Timing`
 * header (`app;dur=…, upstream;dur=…`, milliseconds), so load tests can separate our overhead
 * from the provider's.
 */
export class ServerTiming {
  private upstreamMs = 0;

  /** @param startedAt performance.now() ms when the request arrived (see `arrivalOf`). */
  constructor(private readonly startedAt = performance.now()) {}

  /** Runs `call` and counts its duration as upstream time. */
  async upstream<T>(call: () => Promise<T>): Promise<T> {
    const t = performance.now();
    try {
      return await call();
    } finally {
      this.upstreamMs += performance.now() - t;
    }
  }

  /** `app;dur=<ours>, upstream;dur=<theirs>` as of now. */
  header(): string {
    const total = performance.now() - this.startedAt;
    const app = Math.max(0, total - this.upstreamMs);
    return `app;dur=${app.toFixed(2)};desc="our code", upstream;dur=${this.upstreamMs.toFixed(2)}`;
  }
}
