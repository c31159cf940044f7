import {
  type MiddlewareConsumer,
  Module,
  type NestModule,
  type OnApplicationShutdown,
  RequestMethod,
} from '@nestjs/common';
import { stopTracing } from '../tracing';
import { traceparentHeader } from './spans';

/**
 * OpenTelemetry inside the app (the SDK itself starts in src/tracing.ts): the
 * `traceparent` response header, and the flush of the last spans at shutdown.
 */
@Module({})
export class TelemetryModule implements NestModule, OnApplicationShutdown {
  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(traceparentHeader).forRoutes({ path: '{/*splat}', method: RequestMethod.ALL });
  }

  async onApplicationShutdown(): Promise<void> {
    await stopTracing();
  }
}
