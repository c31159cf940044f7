/** One side of a comparison (the thing measured, or its baseline). */
export interface Side {
  label: string;
  rps?: number;
  p50?: number;
  p99?: number;
  /** Anything else worth keeping in results.json (counts, sizes, raw results). */
  detail?: Record<string, unknown>;
}

/** A derived number checked against a target (or just reported when `limit` is absent). */
export interface Check {
  name: string;
  value: number;
  unit: string;
  /** `max`: value ≤ limit passes; `min`: value ≥ limit passes. */
  limit?: { kind: 'max' | 'min'; value: number };
  pass?: boolean;
}

export interface ScenarioResult {
  id: number;
  name: string;
  measured: Side;
  baseline: Side;
  /** measured / baseline, of `ratioOf`. */
  ratio: number;
  ratioOf: string;
  checks: Check[];
  /** Window of the scenario in ms since the service was spawned (for CPU profile slicing). */
  window?: [number, number];
  notes?: string[];
}

export function check(
  name: string,
  value: number,
  unit: string,
  limit?: { kind: 'max' | 'min'; value: number },
): Check {
  const pass = limit
    ? limit.kind === 'max'
      ? value <= limit.value
      : value >= limit.value
    : undefined;
  return { name, value, unit, limit, pass };
}
