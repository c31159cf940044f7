import { Module } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { TypeOrmModule } from '@nestjs/typeorm';
import { SecretBox } from '../common/crypto/secret-box';
import { ConfigSliceModule } from '../config/config-slice.module';
import { sharedConfig } from '../config/shared.config';
import { ModelsModule } from '../models/models.module';
import { UpstreamIdPipe } from './upstream-id.pipe';
import { UpstreamMetrics } from './upstream-metrics';
import { UpstreamModels } from './upstream-models';
import { UpstreamProbes } from './upstream-probe';
import { UpstreamTester } from './upstream-tester';
import { UpstreamsAdminService } from './upstreams-admin.service';
import { UpstreamsController } from './upstreams.controller';
import { UPSTREAM_ROUTER } from './upstream-router.types';
import { UpstreamStateStore } from './upstream-state.store';
import { UpstreamTable } from './upstream-table';
import { Upstream } from './upstream.entity';
import { UpstreamRouter } from './upstream.router';
import { UpstreamUsageMeter } from './upstream-usage';
import { upstreamsConfig } from './upstreams.config';

/**
 * Upstreams (docs/upstreams.md): the places each provider's models are called, their routing
 * order and shared health, and their admin routes. Exports the router under UPSTREAM_ROUTER and
 * UpstreamProbes (where the AI module installs the `/test` call) for the AI module; imports no
 * module above `models` (AuditService and MetricsService come from global modules).
 */
@Module({
  imports: [
    ConfigSliceModule.forFeature(upstreamsConfig),
    TypeOrmModule.forFeature([Upstream]),
    ModelsModule,
  ],
  controllers: [UpstreamsController],
  providers: [
    UpstreamTable,
    UpstreamModels,
    UpstreamProbes,
    UpstreamsAdminService,
    UpstreamTester,
    UpstreamIdPipe,
    UpstreamStateStore,
    UpstreamUsageMeter,
    UpstreamMetrics,
    UpstreamRouter,
    { provide: UPSTREAM_ROUTER, useExisting: UpstreamRouter },
    {
      // The same sealing as plugin headers and two-factor secrets (ENCRYPTION_KEY through SecretBox).
      provide: SecretBox,
      inject: [sharedConfig.KEY],
      useFactory: (shared: ConfigType<typeof sharedConfig>) => new SecretBox(shared.encryptionKey),
    },
  ],
  exports: [UPSTREAM_ROUTER, UpstreamRouter, UpstreamProbes],
})
export class UpstreamsModule {}
