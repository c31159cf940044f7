import { readFileSync } from 'node:fs';

interface CallFrame {
  functionName: string;
  url: string;
}
interface Profile {
  nodes: { id: number; callFrame: CallFrame }[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** Native functions that write to sockets (the response bytes, the database's statements). */
const SOCKET_WRITES = new Set(['writev', 'writeBuffer', 'writeUtf8String', 'writeLatin1String']);

/** Package (node_modules name) → the part of a metered request it is. */
const PACKAGES: [RegExp, string][] = [
  [/^undici$/, 'fetch transport (undici, under the openai SDK)'],
  [/^openai$/, 'openai SDK'],
  [/^(class-validator|class-transformer|validator|libphonenumber-js)$/, 'validation'],
  [/^(pg|pg-protocol|pg-pool|pg-types|postgres-.*)$/, 'pg driver'],
  [/^typeorm$/, 'TypeORM'],
  [
    /^(@nestjs\/.*|express|router|body-parser|path-to-regexp|raw-body|on-finished|finalhandler|send|qs|iconv-lite|type-is|content-type|mime.*|depd|accepts|negotiator|vary|cors|helmet|reflect-metadata|rxjs)$/,
    'Nest + Express',
  ],
  [/^(prom-client|tdigest|bintrees)$/, 'metrics'],
  [
    /^(pino|pino-.*|nestjs-pino|sonic-boom|fast-redact|thread-stream|on-exit-leak-free)$/,
    'logging',
  ],
  [/^@opentelemetry\/.*$/, 'tracing'],
  [
    /^(jsonwebtoken|jws|jwa|passport.*|@nestjs\/passport|safe-buffer|buffer-equal-constant-time)$/,
    'session (JWT)',
  ],
  [/^(nestjs-i18n|i18n.*)$/, 'i18n'],
  [/^decimal\.js$/, 'pricing (decimal.js)'],
];

/**
 * What a self-time sample was doing: socket writes, GC, a package's part, one of our modules
 * (`dist/src/<module>`), or Node's core.
 */
function categoryOf(frame: CallFrame): string {
  const { functionName, url } = frame;
  if (functionName === '(garbage collector)') return 'GC';
  if (SOCKET_WRITES.has(functionName)) return 'socket writes (writev)';
  if (url.includes('internal/deps/undici')) return PACKAGES[0][1];
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url)?.[1];
  if (pkg) return PACKAGES.find(([re]) => re.test(pkg))?.[1] ?? 'other packages';
  const ours = /\/dist\/src\/([^/]+)/.exec(url)?.[1];
  if (ours) return `our code: ${ours.replace(/\.js$/, '')}`;
  if (url.startsWith('node:')) return 'Node core (http, streams, timers)';
  return functionName === '(program)' ? 'V8 and native (program)' : `native: ${functionName}`;
}

/**
 * Self time of a V8 .cpuprofile between `fromMs` and `toMs` (since the profile started), by
 * category, busiest first: `{busyMs, shares: [category, share 0..1][]}`. Idle time is left out.
 */
export function profileShares(
  file: string,
  fromMs: number,
  toMs: number,
): { busyMs: number; shares: [string, number][] } {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const frames = new Map(profile.nodes.map((n) => [n.id, n.callFrame]));
  const byCategory = new Map<string, number>();
  let busy = 0;
  let t = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    t += profile.timeDeltas[i];
    const ms = (t - profile.startTime) / 1000;
    const dur = profile.timeDeltas[i + 1] ?? 0;
    const frame = frames.get(profile.samples[i])!;
    if (ms < fromMs || ms > toMs || frame.functionName === '(idle)') continue;
    busy += dur;
    const category = categoryOf(frame);
    byCategory.set(category, (byCategory.get(category) ?? 0) + dur);
  }
  const shares = [...byCategory]
    .sort((a, b) => b[1] - a[1])
    .map(([k, us]): [string, number] => [k, us / (busy || 1)]);
  return { busyMs: busy / 1000, shares };
}
