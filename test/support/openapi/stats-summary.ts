import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ValidationStats } from './validation-hook';

/** Global setup: one folder per jest run where each test file leaves its validation counts. */
export function prepareStatsDir(): void {
  process.env.OPENAPI_STATS_DIR ??= mkdtempSync(join(tmpdir(), 'openapi-stats-'));
}

/**
 * Global teardown: prints how many answers were checked against the OpenAPI document in this
 * run, and which documented operations no test exercised. Runs once (the folder is removed).
 */
export function printStatsSummary(): void {
  const dir = process.env.OPENAPI_STATS_DIR;
  if (!dir || !existsSync(dir)) return;
  const files = readdirSync(dir).map(
    (f) => JSON.parse(readFileSync(join(dir, f), 'utf8')) as ValidationStats,
  );
  rmSync(dir, { recursive: true, force: true });
  if (!files.length) return;
  const sum = (k: keyof Omit<ValidationStats, 'operations' | 'documented'>) =>
    files.reduce((n, f) => n + f[k], 0);
  const exercised = new Set(files.flatMap((f) => f.operations));
  const documented = new Set(files.flatMap((f) => f.documented));
  const missed = [...documented].filter((op) => !exercised.has(op));
  console.log(
    `\nOpenAPI response validation: ${sum('validated')} answers checked whole (status, media ` +
      `type, JSON schema or SSE event names), ${sum('statusOnly')} by status and media type ` +
      `only (cut short, or over 1 MB), ${sum('unrouted')} unknown routes (404 error body); ` +
      `not API answers: ${sum('outsideApi')} pages, docs or preflights, ${sum('unanswered')} ` +
      `requests abandoned before an answer. Operations exercised: ${exercised.size} of ` +
      `${documented.size}${missed.length ? ` (never: ${missed.slice(0, 10).join(', ')}${missed.length > 10 ? ', …' : ''})` : ''}.`,
  );
}
