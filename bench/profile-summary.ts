import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

/**
 * Top self-time functions of a V8 .cpuprofile (from `BENCH_CPU_PROF=1 npm run bench`), for the
 * whole run or one scenario's window:
 *
 *   npx ts-node --transpile-only bench/profile-summary.ts [--scenario N] [--top 25] [profile]
 *
 * Without a profile path, the one named in bench/results.json is read; `--scenario` takes its
 * time window from there too (ms since the service was spawned, so ± a few tens of ms).
 */
interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

const args = process.argv.slice(2);
const flag = (name: string) => {
  const i = args.indexOf(name);
  return i >= 0 ? args.splice(i, 2)[1] : undefined;
};
const scenario = flag('--scenario');
const top = Number(flag('--top') ?? 25);
const resultsPath = resolve(__dirname, 'results.json');
const results = (() => {
  try {
    return JSON.parse(readFileSync(resultsPath, 'utf8'));
  } catch {
    return undefined;
  }
})();
const file = args[0] ?? results?.cpuProfile;
if (!file) throw new Error('no profile given and none named in bench/results.json');
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;

let window: [number, number] = [0, Infinity];
if (scenario) {
  const found = results?.results?.find((r: { id: number }) => r.id === Number(scenario));
  if (!found?.window) throw new Error(`scenario ${scenario} has no window in ${resultsPath}`);
  window = found.window;
}

const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map<number, number>();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
/** Inclusive time of our own functions (dist/src), each counted once per sample. */
const inclusiveUs = new Map<string, number>();
const selfUs = new Map<string, number>();
const byPackage = new Map<string, number>();
let total = 0;
let idle = 0;
let t = profile.startTime;
for (let i = 0; i < profile.samples.length; i++) {
  t += profile.timeDeltas[i];
  const dur = profile.timeDeltas[i + 1] ?? 0;
  const ms = (t - profile.startTime) / 1000;
  if (ms < window[0] || ms > window[1]) continue;
  const frame = byId.get(profile.samples[i])!.callFrame;
  if (frame.functionName === '(idle)') {
    idle += dur;
    continue;
  }
  total += dur;
  const key = keyOf(frame);
  selfUs.set(key, (selfUs.get(key) ?? 0) + dur);
  const seen = new Set<string>();
  for (let id: number | undefined = profile.samples[i]; id !== undefined; id = parent.get(id)) {
    const f = byId.get(id)!.callFrame;
    if (!f.url.includes('/dist/src/')) continue;
    const k = keyOf(f);
    if (seen.has(k)) continue;
    seen.add(k);
    inclusiveUs.set(k, (inclusiveUs.get(k) ?? 0) + dur);
  }
  const pkg = packageOf(frame);
  byPackage.set(pkg, (byPackage.get(pkg) ?? 0) + dur);
}

function keyOf(frame: CallFrame): string {
  const where = frame.url ? ` ${shortUrl(frame.url)}:${frame.lineNumber + 1}` : '';
  return `${frame.functionName || '(anonymous)'}${where}`;
}

function shortUrl(url: string): string {
  const nm = url.lastIndexOf('node_modules/');
  if (nm >= 0) return url.slice(nm + 'node_modules/'.length);
  const dist = url.indexOf('/dist/');
  return dist >= 0 ? url.slice(dist + 1) : url.replace(/^file:\/\//, '');
}

function packageOf(frame: CallFrame): string {
  const { url, functionName } = frame;
  if (!url) return functionName.startsWith('(') ? functionName : `(native) ${functionName}`;
  const m = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (m) return m[1];
  if (url.startsWith('node:')) return 'node core';
  if (url.includes('/dist/')) return 'our code (dist)';
  return url;
}

const pct = (us: number) => ((100 * us) / (total || 1)).toFixed(1).padStart(5);
const msOf = (us: number) => (us / 1000).toFixed(0).padStart(7);
const label = scenario ? `scenario ${scenario} (${window[0]}–${window[1]} ms)` : 'whole run';
console.log(
  `${file}\n${label}: ${(total / 1000).toFixed(0)} ms busy, ${(idle / 1000).toFixed(0)} ms idle\n`,
);
console.log(`Top ${top} functions by self time:`);
for (const [key, us] of [...selfUs].sort((a, b) => b[1] - a[1]).slice(0, top)) {
  console.log(`${msOf(us)} ms ${pct(us)}%  ${key}`);
}
console.log('\nSelf time by package:');
for (const [key, us] of [...byPackage].sort((a, b) => b[1] - a[1]).slice(0, 15)) {
  console.log(`${msOf(us)} ms ${pct(us)}%  ${key}`);
}
console.log('\nOur functions (dist/src) by inclusive time:');
for (const [key, us] of [...inclusiveUs].sort((a, b) => b[1] - a[1]).slice(0, 15)) {
  console.log(`${msOf(us)} ms ${pct(us)}%  ${key}`);
}
