import {
  Global,
  type MiddlewareConsumer,
  Module,
  type NestModule,
  RequestMethod,
} from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { AppError, CommonErrorCode } from '../common/errors/app-error';
import { ShutdownService } from './shutdown.service';
import { ConfigSliceModule } from '../config/config-slice.module';
import { lifecycleConfig } from './lifecycle.config';

/**
 * Shutdown and readiness: ShutdownService drains on SIGTERM; while it does, every
 * request but liveness answers 503 NOT_READY (readiness included), so load balancers stop
 * sending traffic while open streams finish.
 */
@Global()
@Module({
  imports: [ConfigSliceModule.forFeature(lifecycleConfig)],
  providers: [ShutdownService],
  exports: [ShutdownService],
})
export class LifecycleModule implements NestModule {
  constructor(private readonly shutdown: ShutdownService) {}

  configure(consumer: MiddlewareConsumer): void {
    consumer
      .apply((req: Request, _res: Response, next: NextFunction) => {
        if (this.shutdown.isDraining() && req.path !== '/health/live')
          return next(new AppError(CommonErrorCode.NOT_READY, 'The service is shutting down'));
        next();
      })
      .forRoutes({ path: '{/*splat}', method: RequestMethod.ALL });
  }
}
