import { Module } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { TypeOrmModule } from '@nestjs/typeorm';
import { SecretBox } from '../common/crypto/secret-box';
import type { AppConfig } from '../config/app.config';
import { ModelsModule } from '../models/models.module';
import { UpstreamMetrics } from './upstream-metrics';
import { UPSTREAM_ROUTER } from './upstream-router.types';
import { UpstreamStateStore } from './upstream-state.store';
import { UpstreamTable } from './upstream-table';
import { Upstream } from './upstream.entity';
import { UpstreamRouter } from './upstream.router';

/**
 * Upstreams (docs/upstreams.md): the places each provider's models are called, their routing
 * order and shared health. Exports the router under UPSTREAM_ROUTER for the AI module; imports
 * no module above `models`.
 */
@Module({
  imports: [TypeOrmModule.forFeature([Upstream]), ModelsModule],
  providers: [
    UpstreamTable,
    UpstreamStateStore,
    UpstreamMetrics,
    UpstreamRouter,
    { provide: UPSTREAM_ROUTER, useExisting: UpstreamRouter },
    {
      // The same sealing as plugin headers and two-factor secrets (ENCRYPTION_KEY through SecretBox).
      provide: SecretBox,
      inject: [ConfigService],
      useFactory: (config: ConfigService<AppConfig, true>) =>
        new SecretBox(config.get('auth', { infer: true }).encryptionKey as string),
    },
  ],
  exports: [UPSTREAM_ROUTER, UpstreamRouter],
})
export class UpstreamsModule {}
