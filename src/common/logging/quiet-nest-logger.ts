import type { LoggerService } from '@nestjs/common';

/**
 * Nest's own start-up chatter: a line per module (`InstanceLoader`), per controller
 * (`RoutesResolver`) and per route (`RouterExplorer`), and the factory's start and end lines,
 * about 260 lines that buried the ones that matter.
 */
const NEST_INTERNALS = new Set([
  'InstanceLoader',
  'RoutesResolver',
  'RouterExplorer',
  'NestFactory',
  'NestApplication',
]);

/**
 * The app's logger with Nest's own start-up lines moved from info to debug (`LOG_LEVEL=debug`
 * shows them); every other line passes through unchanged. Nest passes the context as the last
 * argument of `log`.
 */
export class QuietNestLogger implements LoggerService {
  constructor(private readonly inner: LoggerService) {}

  log(message: unknown, ...rest: unknown[]): void {
    const context = rest.at(-1);
    if (typeof context === 'string' && NEST_INTERNALS.has(context)) {
      this.inner.debug?.(message, ...rest);
      return;
    }
    this.inner.log(message, ...rest);
  }

  error(message: unknown, ...rest: unknown[]): void {
    this.inner.error(message, ...rest);
  }

  warn(message: unknown, ...rest: unknown[]): void {
    this.inner.warn(message, ...rest);
  }

  debug(message: unknown, ...rest: unknown[]): void {
    this.inner.debug?.(message, ...rest);
  }

  verbose(message: unknown, ...rest: unknown[]): void {
    this.inner.verbose?.(message, ...rest);
  }

  fatal(message: unknown, ...rest: unknown[]): void {
    (this.inner.fatal ?? this.inner.error).call(this.inner, message, ...rest);
  }
}
