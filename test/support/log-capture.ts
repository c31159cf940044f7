import fs from 'node:fs';

type Callback = (e: Error | null, n: number) => void;

/**
 * Captures what the in-process app's logger prints (pino writes to file descriptor 1 through
 * `fs.write` / `fs.writeSync`), instead of letting it reach the terminal. `text()` answers
 * everything written since the capture started; `stop()` restores the writes.
 */
export function captureStdoutLogs(): { text(): string; stop(): void } {
  const original = { write: fs.write, writeSync: fs.writeSync };
  let out = '';
  const keep = (data: unknown): number => {
    const text = typeof data === 'string' ? data : Buffer.from(data as Uint8Array).toString('utf8');
    out += text;
    return Buffer.byteLength(text);
  };
  const write = jest.spyOn(fs, 'write').mockImplementation(((
    fd: number,
    data: unknown,
    ...rest: unknown[]
  ) => {
    if (fd !== 1) return (original.write as (...a: unknown[]) => void)(fd, data, ...rest);
    const n = keep(data);
    const cb = rest.find((r) => typeof r === 'function') as Callback | undefined;
    if (cb) process.nextTick(cb, null, n);
  }) as unknown as typeof fs.write);
  const writeSync = jest
    .spyOn(fs, 'writeSync')
    .mockImplementation(((fd: number, data: unknown, ...rest: unknown[]) =>
      fd === 1
        ? keep(data)
        : (original.writeSync as (...a: unknown[]) => number)(
            fd,
            data,
            ...rest,
          )) as typeof fs.writeSync);
  return {
    text: () => out,
    stop: () => {
      write.mockRestore();
      writeSync.mockRestore();
    },
  };
}
