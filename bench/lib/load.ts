import autocannon from 'autocannon';
import { treeCpuMs } from './processes';
import { parseServerTiming, percentile, round } from './stats';

export interface LoadOptions {
  url: string;
  connections: number;
  durationS: number;
  /**
   * Seconds of load before the measured window, in the same run: answers to requests sent
   * before it ends are not counted. A separate warm-up run would not do: autocannon starts all
   * connections at once, and that first burst would land in the measured run.
   */
  warmupS?: number;
  /**
   * Starts the connections one by one over this many ms (at most the warm-up) instead of all
   * at once, as independent users would arrive; each is its own autocannon instance.
   */
  staggerMs?: number;
  method?: 'GET' | 'POST';
  body?: string;
  /** Headers of every request (content-type, …). */
  headers?: Record<string, string>;
  /** Bearer tokens given to the connections in turn (one user per connection). */
  tokens?: string[];
  /** Collect the `Server-Timing` durations of the answers. */
  serverTiming?: boolean;
  /** Measure the CPU time this process and its descendants (workers) spend per 2xx answer. */
  cpuPid?: number;
  /** Measure the same for PostgreSQL (the postmaster's pid: it and its backends). */
  pgPid?: number;
}

/** One load run: throughput and latencies (ms, microsecond precision) of the 2xx answers. */
export interface LoadResult {
  rps: number;
  p50: number;
  p99: number;
  mean: number;
  ok: number;
  /** 2xx answers of the whole run, warm-up included (for counters read around the run). */
  answered: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  durationS: number;
  bytesPerResponse: number;
  connections: number;
  /** CPU time of `cpuPid` (and its workers) per 2xx answer (ms), when asked. */
  cpuMsPerRequest?: number;
  /** CPU time of PostgreSQL (`pgPid` and its backends) per 2xx answer (ms), when asked. */
  pgCpuMsPerRequest?: number;
  /** Medians and p99 of the Server-Timing parts (ms), when asked. */
  serverTiming?: Record<string, { p50: number; p99: number }>;
}

/**
 * Runs autocannon against `url` for `durationS` seconds. Latencies are recorded from the
 * client's own per-response durations (autocannon's histogram rounds to whole milliseconds).
 */
export async function load(opts: LoadOptions): Promise<LoadResult> {
  const latencies: number[] = [];
  const timing: Record<string, number[]> = {};
  let ok = 0;
  let answered = 0;
  let non2xx = 0;
  let bytes = 0;
  let clientIndex = 0;
  const baseHeaders = opts.headers ?? {};
  const warmupMs = (opts.warmupS ?? 0) * 1000;
  let measuring = warmupMs === 0;
  let measureFrom = performance.now() + warmupMs;
  const cpuOf = (pid?: number) => (pid ? treeCpuMs(pid) : NaN);
  let cpuBefore = measuring ? cpuOf(opts.cpuPid) : NaN;
  let pgBefore = measuring ? cpuOf(opts.pgPid) : NaN;
  const warm = setTimeout(() => {
    measuring = true;
    measureFrom = performance.now();
    cpuBefore = cpuOf(opts.cpuPid);
    pgBefore = cpuOf(opts.pgPid);
  }, warmupMs);
  const setupClient = (client: any) => {
    const token = opts.tokens?.length ? opts.tokens[clientIndex++ % opts.tokens.length] : undefined;
    if (token) client.setHeaders({ ...baseHeaders, authorization: `Bearer ${token}` });
    client.on('response', (status: number, resBytes: number, ms: number) => {
      if (status >= 200 && status < 300) answered++;
      // Counted only when the request was sent inside the measured window.
      if (!measuring || performance.now() - ms < measureFrom) return;
      if (status >= 200 && status < 300) {
        ok++;
        bytes += resBytes;
        latencies.push(ms);
      } else non2xx++;
    });
    if (opts.serverTiming) {
      client.on('headers', (parsed: { headers: Buffer[] | string[] }) => {
        if (!measuring) return;
        const raw = parsed.headers;
        for (let i = 0; i < raw.length; i += 2) {
          if (String(raw[i]).toLowerCase() !== 'server-timing') continue;
          for (const [k, v] of Object.entries(parseServerTiming(String(raw[i + 1])))) {
            (timing[k] ??= []).push(v);
          }
        }
      });
    }
  };
  const totalS = opts.durationS + warmupMs / 1000;
  const run = (connections: number, durationS: number) =>
    autocannon({
      url: opts.url,
      connections,
      duration: durationS,
      method: opts.method ?? 'GET',
      body: opts.body,
      headers: baseHeaders,
      timeout: 30,
      setupClient,
    });
  const staggerMs = Math.min(opts.staggerMs ?? 0, warmupMs);
  const runs = staggerMs
    ? Array.from({ length: opts.connections }, async (_, i) => {
        const offsetMs = (i * staggerMs) / opts.connections;
        await new Promise((r) => setTimeout(r, offsetMs));
        return run(1, totalS - offsetMs / 1000);
      })
    : [run(opts.connections, totalS)];
  const results = await Promise.all(runs);
  const result = {
    errors: results.reduce((n, r) => n + r.errors, 0),
    timeouts: results.reduce((n, r) => n + r.timeouts, 0),
  };
  clearTimeout(warm);
  const durationS = (performance.now() - measureFrom) / 1000;
  const cpuUsed = cpuOf(opts.cpuPid) - cpuBefore;
  const pgUsed = cpuOf(opts.pgPid) - pgBefore;
  const out: LoadResult = {
    rps: round(ok / durationS, 1),
    p50: round(percentile(latencies, 50)),
    p99: round(percentile(latencies, 99)),
    mean: round(latencies.reduce((a, b) => a + b, 0) / (latencies.length || 1)),
    ok,
    answered,
    non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    durationS: round(durationS, 2),
    bytesPerResponse: ok ? Math.round(bytes / ok) : 0,
    connections: opts.connections,
  };
  if (opts.cpuPid) out.cpuMsPerRequest = round(cpuUsed / (ok || 1));
  if (opts.pgPid) out.pgCpuMsPerRequest = round(pgUsed / (ok || 1));
  if (opts.serverTiming) {
    out.serverTiming = Object.fromEntries(
      Object.entries(timing).map(([k, v]) => [
        k,
        { p50: round(percentile(v, 50)), p99: round(percentile(v, 99)) },
      ]),
    );
  }
  return out;
}
