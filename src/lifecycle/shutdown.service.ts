import {
  type BeforeApplicationShutdown,
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
  type OnModuleDestroy,
} from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { lifecycleConfig } from './lifecycle.config';
import { drainStreams, openStreamCount } from './open-streams';

/**
 * Graceful shutdown. From SIGTERM (or SIGINT) on, the service drains: readiness
 * and every new request answer 503 (DrainingMiddleware), while open streams get
 * SHUTDOWN_GRACE_MS to finish; after that they are cut and settled as aborted, before Nest's
 * shutdown hooks close the database. main.ts then exits 0. With node:cluster workers, each
 * worker drains its own streams.
 */
@Injectable()
export class ShutdownService
  implements
    OnApplicationBootstrap,
    OnModuleDestroy,
    BeforeApplicationShutdown,
    OnApplicationShutdown
{
  private readonly logger = new Logger('Shutdown');
  private draining = false;
  private readonly graceMs: number;
  // Only flips the flag: main.ts's own signal handler runs app.close() (the hooks below).
  private readonly onSignal = (signal: NodeJS.Signals) => this.drain(signal);

  constructor(@Inject(lifecycleConfig.KEY) lifecycle: ConfigType<typeof lifecycleConfig>) {
    this.graceMs = lifecycle.shutdownGraceMs;
  }

  /** True from the first shutdown signal (or app.close()) on. */
  isDraining(): boolean {
    return this.draining;
  }

  /** Starts draining: from now on new requests and readiness answer 503. Idempotent. */
  drain(reason: string): void {
    if (this.draining) return;
    this.draining = true;
    this.logger.log(
      `Draining (${reason}): new requests answer 503; ${openStreamCount()} open stream(s) get up to ${this.graceMs} ms`,
    );
  }

  onApplicationBootstrap(): void {
    process.once('SIGTERM', this.onSignal);
    process.once('SIGINT', this.onSignal);
  }

  onModuleDestroy(): void {
    this.drain('closing');
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.drain('closing');
    const { finished, cut } = await drainStreams(this.graceMs);
    if (finished || cut)
      this.logger.log(
        `Streams: ${finished} finished, ${cut} cut after the grace period and settled`,
      );
  }

  onApplicationShutdown(): void {
    process.removeListener('SIGTERM', this.onSignal);
    process.removeListener('SIGINT', this.onSignal);
  }
}
