import {
  Global,
  type MiddlewareConsumer,
  Module,
  type NestModule,
  RequestMethod,
} from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuditEvent } from './audit-event.entity';
import { AuditController } from './audit.controller';
import { AuditService } from './audit.service';
import { requestContext } from './request-context';

/**
 * The audit log. Global, like the clock: the modules whose actions are audited
 * (users, billing, webhooks, two-factor, keys, teams) call AuditService.record inside their own
 * transactions; audit depends on no feature module.
 */
@Global()
@Module({
  imports: [TypeOrmModule.forFeature([AuditEvent])],
  controllers: [AuditController],
  providers: [AuditService],
  exports: [AuditService],
})
export class AuditModule implements NestModule {
  configure(consumer: MiddlewareConsumer): void {
    // Every path, as nestjs-pino registers its own middleware (path-to-regexp v8 syntax).
    consumer.apply(requestContext).forRoutes({ path: '{/*splat}', method: RequestMethod.ALL });
  }
}
