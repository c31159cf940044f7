import { PinoLogger } from 'nestjs-pino';
import { symbols } from 'pino';

/** The part of pino's default destination (sonic-boom) this reads. */
interface Destination {
  /** True while an asynchronous write is in flight. */
  _writing?: boolean;
  once?(event: 'drain', listener: () => void): unknown;
}

/**
 * Resolves once the app logger's destination has written everything logged so far, so a line
 * printed to stdout afterwards (the ready line) comes after them. pino writes asynchronously and
 * its `flush(cb)` calls back at once when no minimum length is set, so this waits for the
 * destination's `drain` while a write is in flight. Resolves at once for any other destination.
 */
export async function drainLogs(): Promise<void> {
  const root = PinoLogger.root as unknown as Record<symbol, Destination> | undefined;
  const destination = root?.[symbols.streamSym];
  if (!destination?._writing || !destination.once) return;
  await new Promise<void>((done) => destination.once!('drain', done));
}
