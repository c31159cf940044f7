import { DynamicModule, Module } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { APP_FILTER, APP_GUARD, APP_INTERCEPTOR, APP_PIPE } from '@nestjs/core';
import { randomUUID } from 'node:crypto';
import { LoggerModule } from 'nestjs-pino';
import { AiModule } from './ai';
import { ERROR_TABLE, WIRE_ERROR_FORMATS } from './app-errors';
import { AuditModule } from './audit/audit.module';
import { AuthGithubModule } from './auth-github/auth-github.module';
import { AuthGoogleModule } from './auth-google/auth-google.module';
import { GatewayModule } from './gateway/gateway.module';
import { KeysModule } from './keys/keys.module';
import { BudgetsModule } from './budgets/budgets.module';
import { AuthModule } from './auth/auth.module';
import { BillingModule } from './billing/billing.module';
import { BookmarksModule } from './bookmarks/bookmarks.module';
import { ChatsModule } from './chats/chats.module';
import { ClockModule } from './common/clock/clock';
import { JwtAuthGuard } from './common/auth/jwt-auth.guard';
import { RolesGuard } from './common/auth/roles.guard';
import { EnvelopeInterceptor } from './common/envelope/envelope.interceptor';
import { AllExceptionsFilter } from './common/errors/all-exceptions.filter';
import { ErrorsModule } from './common/errors/errors.module';
import { createValidationPipe } from './common/validation/validation.pipe';
import { appSettingsConfig } from './config/app-settings.config';
import { ConfigSliceModule } from './config/config-slice.module';
import { CreditsModule } from './credits/credits.module';
import { DatabaseModule } from './database/database.module';
import { HealthModule } from './health/health.module';
import { JobsModule } from './jobs/jobs.module';
import { LifecycleModule } from './lifecycle/lifecycle.module';
import { TelemetryModule } from './telemetry/telemetry.module';
import { traceLogFields } from './telemetry/spans';
import { MetricsModule } from './metrics/metrics.module';
import { AppI18nModule } from './i18n/i18n.module';
import { PagesModule } from './pages/pages.module';
import { PluginsModule } from './plugins/plugins.module';
import { ReferralsModule } from './referrals/referrals.module';
import { ReconciliationModule } from './reconciliation/reconciliation.module';
import { RedemptionModule } from './redemption/redemption.module';
import { SearchModule } from './search/search.module';
import { SharesModule } from './shares/shares.module';
import { TagsModule } from './tags/tags.module';
import { TasksModule } from './tasks/tasks.module';
import { TeamsModule } from './teams/teams.module';
import { PoolsModule } from './pools/pools.module';
import { UploadsModule } from './uploads/uploads.module';
import { UpstreamsModule } from './upstreams/upstreams.module';
import { UsersModule } from './users/users.module';
import { WalletModule } from './wallet/wallet.module';
import { WebhooksModule } from './webhooks/webhooks.module';

/**
 * The whole service. `forRoot(env)` merges `env` over process.env (tests use it for ports and
 * URLs); every module imported here brings its configuration slice, all validated and loaded
 * together at boot (ConfigSliceModule); global guards, pipe, filter and interceptor are providers here, so a test app built
 * from this module behaves exactly like production.
 */
@Module({})
export class AppModule {
  static forRoot(env: Record<string, string | undefined> = {}): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ConfigSliceModule.forRoot(() => ({ ...process.env, ...env }), {
          ignoreEnvFile: process.env.NODE_ENV === 'test',
        }),
        LoggerModule.forRootAsync({
          inject: [appSettingsConfig.KEY],
          useFactory: (app: ConfigType<typeof appSettingsConfig>) => ({
            pinoHttp: {
              level: app.logLevel,
              // The trace id of the active span (OpenTelemetry, when on) in every line.
              mixin: traceLogFields,
              genReqId: (req, res) => {
                const given = req.headers['x-request-id'];
                const id =
                  typeof given === 'string' && /^[\w-]{1,64}$/.test(given) ? given : randomUUID();
                res.setHeader('x-request-id', id);
                return id;
              },
              // Never log credentials: only method, path and id of a request; status of a response.
              serializers: {
                req: (req: { id: string; method: string; url: string }) => ({
                  id: req.id,
                  method: req.method,
                  path: req.url.split('?')[0],
                }),
                res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
              },
              redact: [
                'req.headers',
                'res.headers',
                '*.password',
                '*.accessToken',
                '*.secret',
                '*.key',
              ],
              autoLogging: { ignore: (req) => req.url === '/health/live' },
            },
          }),
        }),
        DatabaseModule,
        ClockModule,
        ErrorsModule.forRoot({ table: ERROR_TABLE, formats: WIRE_ERROR_FORMATS }),
        LifecycleModule,
        TelemetryModule,
        AuditModule,
        MetricsModule,
        JobsModule,
        CreditsModule,
        UsersModule,
        AuthModule,
        KeysModule,
        AuthGoogleModule,
        AuthGithubModule,
        TeamsModule,
        BudgetsModule,
        PoolsModule,
        ChatsModule,
        TagsModule,
        BookmarksModule,
        SharesModule,
        PluginsModule,
        UpstreamsModule,
        AiModule,
        GatewayModule,
        TasksModule,
        SearchModule,
        BillingModule,
        WalletModule,
        WebhooksModule,
        ReconciliationModule,
        ReferralsModule,
        RedemptionModule,
        UploadsModule,
        HealthModule,
        AppI18nModule,
        // Last: its catch-all page route must be registered after every other route.
        PagesModule,
      ],
      providers: [
        { provide: APP_GUARD, useClass: JwtAuthGuard },
        { provide: APP_GUARD, useClass: RolesGuard },
        { provide: APP_PIPE, useFactory: createValidationPipe },
        { provide: APP_FILTER, useClass: AllExceptionsFilter },
        { provide: APP_INTERCEPTOR, useClass: EnvelopeInterceptor },
      ],
    };
  }
}
