/** Samples of a Prometheus text exposition, keyed by `name{label="value",…}` (labels sorted). */
export type Samples = Map<string, number>;

/** Parses Prometheus' text format (comments skipped). */
export function parseMetrics(text: string): Samples {
  const samples: Samples = new Map();
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m) throw new Error(`Not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[l[1]] = l[2];
    samples.set(keyOf(m[1], labels), Number(m[3]));
  }
  return samples;
}

function keyOf(name: string, labels: Record<string, string>): string {
  const parts = Object.keys(labels)
    .sort()
    .map((k) => `${k}="${labels[k]}"`);
  return `${name}{${parts.join(',')}}`;
}

/** One sample's value; 0 when absent (a labelled counter appears at its first increment). */
export function sample(s: Samples, name: string, labels: Record<string, string> = {}): number {
  return s.get(keyOf(name, labels)) ?? 0;
}

/** `after − before` of one sample. */
export function moved(
  before: Samples,
  after: Samples,
  name: string,
  labels: Record<string, string> = {},
): number {
  return sample(after, name, labels) - sample(before, name, labels);
}
