import { type ChildProcess, spawn } from 'node:child_process';
import { createWriteStream, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';

/** A child process the bench started, with its output kept in a log file. */
export interface Child {
  name: string;
  proc: ChildProcess;
  pid: number;
  logFile: string;
  /** Wall-clock time (ms) when it was spawned; CPU profiles count from about here. */
  spawnedAt: number;
  /** Its stdout so far (the first 64 KB). */
  stdout: string;
}

const children = new Set<Child>();

/** A free TCP port on 127.0.0.1 (bound and released at once). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const address = srv.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

/** Spawns `node <args>` with `env`, logging stdout and stderr to `logFile`. */
export function spawnNode(
  name: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  logFile: string,
): Child {
  const proc = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  if (!proc.pid) throw new Error(`${name} did not start`);
  const log = createWriteStream(logFile);
  proc.stdout!.pipe(log);
  proc.stderr!.pipe(log);
  const child: Child = { name, proc, pid: proc.pid, logFile, spawnedAt: Date.now(), stdout: '' };
  proc.stdout!.on('data', (d: Buffer) => {
    if (child.stdout.length < 65_536) child.stdout += d.toString();
  });
  children.add(child);
  proc.once('exit', () => children.delete(child));
  return child;
}

/** Resolves with the port a child prints as `LISTENING <port>`. */
export function listeningPort(child: Child, timeoutMs = 30_000): Promise<number> {
  return new Promise((resolve, reject) => {
    const found = () => /LISTENING (\d+)/.exec(child.stdout);
    const finish = (err?: Error) => {
      clearTimeout(timer);
      clearInterval(poll);
      child.proc.off('exit', onExit);
      const m = found();
      if (m) resolve(Number(m[1]));
      else reject(err);
    };
    const onExit = (code: number | null) =>
      finish(new Error(`${child.name} exited with ${code} (log: ${child.logFile})`));
    const timer = setTimeout(
      () => finish(new Error(`${child.name} did not report its port (log: ${child.logFile})`)),
      timeoutMs,
    );
    const poll = setInterval(() => found() && finish(), 20);
    child.proc.once('exit', onExit);
  });
}

/** Polls `url` until it answers 200, or fails after `timeoutMs` or when the child exits. */
export async function waitForHttp(child: Child, url: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.proc.exitCode !== null) {
      throw new Error(`${child.name} exited with ${child.proc.exitCode}; log: ${tail(child)}`);
    }
    try {
      const res = await fetch(url);
      if (res.status === 200) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${child.name} not ready at ${url} after ${timeoutMs} ms; log: ${tail(child)}`);
}

/** The last lines of a child's log, for error messages. */
export function tail(child: Child, lines = 30): string {
  try {
    return '\n' + readFileSync(child.logFile, 'utf8').split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}

/** SIGTERM, then SIGKILL after `graceMs`; resolves when the child is gone. */
export async function stopChild(child: Child, graceMs = 10_000): Promise<void> {
  if (child.proc.exitCode !== null || child.proc.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.proc.once('exit', () => resolve()));
  child.proc.kill('SIGTERM');
  const timer = setTimeout(() => child.proc.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
}

/** Stops every child still running (used on errors and signals). */
export async function stopAllChildren(): Promise<void> {
  await Promise.all([...children].map((c) => stopChild(c)));
}

/** A field of /proc/<pid>/status in bytes (VmRSS, VmHWM), or 0 when unreadable. */
export function procStatusBytes(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  try {
    const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(
      readFileSync(`/proc/${pid}/status`, 'utf8'),
    );
    return m ? Number(m[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

/**
 * Samples the RSS of `pid` every `everyMs` until `stop()`; also resets the kernel's peak
 * (VmHWM, through clear_refs) at the start and reads it at the end, so a peak between two
 * samples is not missed. Returns the baseline (before) and the peak, in bytes.
 */
export function sampleRss(pid: number, everyMs = 10) {
  const before = procStatusBytes(pid, 'VmRSS');
  let hwmReset = false;
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    hwmReset = true;
  } catch {
    // not permitted: sampling alone
  }
  let peak = before;
  const timer = setInterval(() => {
    peak = Math.max(peak, procStatusBytes(pid, 'VmRSS'));
  }, everyMs);
  return {
    stop(): { before: number; peak: number; peakSource: string } {
      clearInterval(timer);
      const sampled = Math.max(peak, procStatusBytes(pid, 'VmRSS'));
      const hwm = hwmReset ? procStatusBytes(pid, 'VmHWM') : 0;
      return {
        before,
        peak: Math.max(sampled, hwm),
        peakSource: hwm > sampled ? 'VmHWM' : 'VmRSS samples',
      };
    },
  };
}

/** Pids of `root` and all its descendants (the service's primary and workers). */
export function treePids(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid)) continue;
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), pid]);
    } catch {
      // exited while we read
    }
  }
  const out: number[] = [];
  const stack = [root];
  while (stack.length) {
    const pid = stack.pop()!;
    out.push(pid);
    stack.push(...(children.get(pid) ?? []));
  }
  return out;
}

/**
 * Samples the summed RSS of a process tree every `everyMs` (bytes): `stop()` gives the sum
 * before and the highest sum seen. With workers, whichever worker serves the request counts.
 */
export function sampleTreeRss(root: number, everyMs = 10) {
  const pids = treePids(root);
  const sum = () =>
    pids.reduce((n, pid) => {
      try {
        return n + procStatusBytes(pid, 'VmRSS');
      } catch {
        return n;
      }
    }, 0);
  const before = sum();
  let peak = before;
  const timer = setInterval(() => (peak = Math.max(peak, sum())), everyMs);
  return {
    stop(): { before: number; peak: number } {
      clearInterval(timer);
      return { before, peak: Math.max(peak, sum()) };
    },
  };
}

/**
 * CPU time (ms) of a process and all its descendants: user + system of each live process plus
 * what its reaped children used (cutime, cstime). With `WEB_CONCURRENCY` workers the service is
 * a primary and its workers; PostgreSQL is the postmaster and one backend per connection.
 */
export function treeCpuMs(root: number): number {
  const children = new Map<number, number[]>();
  const ticks = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid)) continue;
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const ppid = Number(f[1]);
      ticks.set(pid, Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14]));
      children.set(ppid, [...(children.get(ppid) ?? []), pid]);
    } catch {
      // exited while we read
    }
  }
  if (!ticks.has(root)) return NaN;
  let total = 0;
  const stack = [root];
  while (stack.length) {
    const pid = stack.pop()!;
    total += ticks.get(pid) ?? 0;
    stack.push(...(children.get(pid) ?? []));
  }
  return (total * 1000) / CLOCK_TICKS;
}

/** Kernel clock ticks per second (USER_HZ); 100 on Linux. */
const CLOCK_TICKS = 100;
