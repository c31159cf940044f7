/** Nearest-rank percentile of `values` (ms), `p` in 0..100; NaN when empty. */
export function percentile(values: number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = Float64Array.from(values).sort();
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))];
}

export interface Summary {
  count: number;
  p50: number;
  p99: number;
  mean: number;
  max: number;
}

export function summarize(values: number[]): Summary {
  const sum = values.reduce((a, b) => a + b, 0);
  return {
    count: values.length,
    p50: percentile(values, 50),
    p99: percentile(values, 99),
    mean: values.length ? sum / values.length : NaN,
    max: values.length ? Math.max(...values) : NaN,
  };
}

/** `app;dur=1.23;desc="…", upstream;dur=4.56` → { app: 1.23, upstream: 4.56 }. */
export function parseServerTiming(header: string | undefined): Record<string, number> {
  const out: Record<string, number> = {};
  for (const part of (header ?? '').split(',')) {
    const [name, ...params] = part.trim().split(';');
    const dur = params.map((p) => /^dur=([\d.]+)$/.exec(p.trim())).find(Boolean);
    if (name && dur) out[name] = Number(dur[1]);
  }
  return out;
}

export const round = (n: number, digits = 2): number =>
  Number.isFinite(n) ? Number(n.toFixed(digits)) : n;
