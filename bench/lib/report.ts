import { cpus, totalmem } from 'node:os';
import type { ScenarioResult, Side } from './types';

const fmt = (n: number | undefined, digits = 2): string =>
  n === undefined || Number.isNaN(n) ? '–' : Number(n.toFixed(digits)).toString();

const sideCells = (s: Side) => [s.label, fmt(s.rps, 1), fmt(s.p50), fmt(s.p99)];

/** The results as markdown: one row per scenario, then the derived numbers and targets. */
export function markdown(results: ScenarioResult[], meta: Record<string, unknown>): string {
  const lines = [
    `Bench of ${meta.date} on ${meta.cpus}× ${meta.cpuModel}, ${meta.memoryGB} GB RAM, Node ${meta.node}; ` +
      `load average ${meta.loadAverage1mBefore} before, ${meta.loadAverage1mAfter} after; ` +
      `${meta.totalSeconds} s in all; DB_POOL_SIZE ${meta.servicePoolSize}`,
    '',
    '| # | scenario | measured | req/s | p50 ms | p99 ms | baseline | req/s | p50 ms | p99 ms | ratio |',
    '|---|---|---|---:|---:|---:|---|---:|---:|---:|---|',
  ];
  for (const r of results) {
    const cells = [
      String(r.id),
      r.name,
      ...sideCells(r.measured),
      ...sideCells(r.baseline),
      `${fmt(r.ratio, 3)} (${r.ratioOf})`,
    ];
    lines.push(`| ${cells.join(' | ')} |`);
  }
  lines.push('', '| # | check | value | target | met |', '|---|---|---:|---|---|');
  for (const r of results) {
    for (const c of r.checks) {
      const target = c.limit ? `${c.limit.kind === 'max' ? '≤' : '≥'} ${c.limit.value}` : '';
      const met = c.pass === undefined ? '' : c.pass ? 'yes' : '**NO**';
      lines.push(`| ${r.id} | ${c.name} | ${fmt(c.value)} ${c.unit} | ${target} | ${met} |`);
    }
  }
  const notes = results.flatMap((r) => (r.notes ?? []).map((n) => `- (${r.id}) ${n}`));
  if (notes.length) lines.push('', ...notes);
  return lines.join('\n');
}

export function machine(): Record<string, unknown> {
  const list = cpus();
  return {
    date: new Date().toISOString(),
    cpus: list.length,
    cpuModel: list[0]?.model ?? 'unknown',
    memoryGB: Math.round(totalmem() / 1024 ** 3),
    node: process.versions.node,
    platform: `${process.platform} ${process.arch}`,
  };
}
