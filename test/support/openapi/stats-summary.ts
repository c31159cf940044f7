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
  const sum = (k: keyof Omit<ValidationStats, 'operations'>) => files.reduce((n, f) => n + f[k], 0);
  const exercised = new Set(files.flatMap((f) => f.operations));
  console.log(
    `\nOpenAPI response validation: ${sum('validated')} answers checked with their body, ` +
      `${sum('statusOnly')} by status and content type (streams cut short, large files), ` +
      `${sum('unrouted')} unknown routes (404 body checked); ${sum('outsideApi')} page or ` +
      `docs answers and ${sum('unanswered')} requests abandoned before an answer were not ` +
      `API answers. Operations exercised: ${exercised.size}.`,
  );
}
