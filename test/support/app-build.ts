import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';

const ROOT = resolve(__dirname, '..', '..');

/**
 * The service compiled to JavaScript once per test run, for the tests that spawn it as a child
 * process: `<dir>/src/main.js` beside `<dir>/migrations/*.js`. A child transpiling the app itself
 * (ts-node) spends about 9 s of CPU per process, and a run starts several per spawning file
 * (three per boot with WEB_CONCURRENCY=2); `tsc --noCheck` emits the whole app once in about 11 s
 * (the same emitter as `nest build`, decorator metadata included; the type check is lint's).
 *
 * The folder sits under the repository's `.data/` so that the compiled files resolve
 * `node_modules` and `i18n/` by walking up, as `dist/` does. Global setup names it per run in
 * TEST_APP_BUILD; nothing is compiled until a test spawns the service.
 */
export const BUILD_ROOT = join(ROOT, '.data', 'test-build');

/** Written by the build when tsc ends: its exit code. The preload waits on it. */
export const STATUS_FILE = '.status';
/** tsc's output, printed by the preload when the build failed. */
export const LOG_FILE = '.log';

/** The preload (plain JavaScript, run by node before main.js) that waits for the build. */
export const AWAIT_BUILD = join(ROOT, 'test', 'support', 'await-app-build.js');

/** Picks this run's build folder (global setup): TEST_APP_BUILD for the test workers. */
export function nameAppBuild(runId: string): void {
  process.env.TEST_APP_BUILD = join(BUILD_ROOT, runId);
}

/**
 * This run's build folder, its compilation started by the first caller of the run (creating the
 * folder is the lock, so two workers never compile twice). Returns at once: the child's preload
 * waits for the status file. Undefined outside a jest run that named one (ts-node then).
 */
export function appBuild(): string | undefined {
  const dir = process.env.TEST_APP_BUILD;
  if (!dir) return undefined;
  mkdirSync(BUILD_ROOT, { recursive: true });
  try {
    mkdirSync(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return dir;
    throw err;
  }
  // A detached script runs tsc and then writes the status file, so the status is written even
  // when the jest worker that started the build has been replaced in the meantime.
  const script = `
    const { spawnSync } = require('node:child_process');
    const { renameSync, writeFileSync } = require('node:fs');
    const [tsc, dir] = process.argv.slice(1);
    const r = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json', '--noCheck', '--outDir', dir], { encoding: 'utf8' });
    writeFileSync(dir + '/${LOG_FILE}', String(r.stdout) + String(r.stderr) + (r.error ? String(r.error) : ''));
    // Renamed into place: the preload never reads a half-written status.
    writeFileSync(dir + '/${STATUS_FILE}.tmp', String(r.status ?? 1));
    renameSync(dir + '/${STATUS_FILE}.tmp', dir + '/${STATUS_FILE}');
  `;
  const tsc = require.resolve('typescript/bin/tsc', { paths: [ROOT] });
  spawn(process.execPath, ['-e', script, tsc, dir], {
    cwd: ROOT,
    stdio: 'ignore',
    detached: true,
  }).unref();
  return dir;
}

/**
 * Removes this run's build (global teardown), after waiting a bounded while for a compilation
 * still running (a test that spawned the service and then failed fast), so none is left behind.
 */
export async function removeAppBuild(): Promise<void> {
  const dir = process.env.TEST_APP_BUILD;
  if (!dir || !existsSync(dir)) return;
  for (let i = 0; i < 600 && !existsSync(join(dir, STATUS_FILE)); i++)
    await new Promise((r) => setTimeout(r, 100));
  rmSync(dir, { recursive: true, force: true });
}
