import {
  Global,
  Inject,
  Logger,
  type MiddlewareConsumer,
  Module,
  type NestModule,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
  RequestMethod,
} from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { opsConfig } from './metrics.config';
import cluster from 'node:cluster';
import type { Server } from 'node:http';
import { DatabaseGauges } from './database-gauges';
import { httpMetrics } from './http-metrics.middleware';
import { startMetricsServer } from './metrics-server';
import { MetricsController } from './metrics.controller';
import { MetricsService } from './metrics.service';
import { ConfigSliceModule } from '../config/config-slice.module';

/**
 * Prometheus metrics. Global: the code paths that move a counter (AI, credits,
 * webhooks) call MetricsService in one line; metrics depends on no feature module.
 * With METRICS_PORT, a single process serves them on that port; a cluster worker leaves the
 * port to the primary, which aggregates (metrics-server.ts `clusterScrape`).
 */
@Global()
@Module({
  imports: [ConfigSliceModule.forFeature(opsConfig)],
  controllers: [MetricsController],
  providers: [MetricsService, DatabaseGauges],
  exports: [MetricsService],
})
export class MetricsModule implements NestModule, OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('Metrics');
  private server?: Server;

  constructor(
    private readonly metrics: MetricsService,
    @Inject(opsConfig.KEY) private readonly ops: ConfigType<typeof opsConfig>,
  ) {}

  configure(consumer: MiddlewareConsumer): void {
    consumer
      .apply(httpMetrics(this.metrics))
      .forRoutes({ path: '{/*splat}', method: RequestMethod.ALL });
  }

  async onApplicationBootstrap(): Promise<void> {
    const { metricsPort, metricsToken } = this.ops;
    if (metricsPort === undefined || cluster.isWorker) return;
    const started = await startMetricsServer(
      metricsPort,
      () => this.metrics.scrape(),
      metricsToken,
    );
    this.server = started.server;
    this.logger.log(`Metrics on port ${started.port} (/metrics)`);
  }

  async onApplicationShutdown(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (server) await new Promise((resolve) => server.close(resolve));
  }

  /** The port METRICS_PORT bound (for tests with METRICS_PORT=0); undefined when none. */
  metricsPort(): number | undefined {
    const address = this.server?.address();
    return typeof address === 'object' && address ? address.port : undefined;
  }
}
