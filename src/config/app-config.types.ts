import type { AiConfig } from '../ai/ai.config';
import type { ProviderConfig } from '../ai/providers/providers.config';
import type { AuthConfig } from '../auth/auth.config';
import type { TwoFactorConfig } from '../auth/two-factor/two-factor.config';
import type { StripeConfig } from '../billing/billing.config';
import type { CreditsConfig } from '../credits/credits.config';
import type { DatabaseConfig } from '../database/database.config';
import type { JobsConfig } from '../jobs/jobs.config';
import type { MailConfig } from '../mail/mail.config';
import type { OpsConfig } from '../metrics/metrics.config';
import type { PagesConfig } from '../pages/pages.config';
import type { PluginsConfig } from '../plugins/plugins.config';
import type { ReferralsConfig } from '../referrals/referrals.config';
import type { SearchConfig } from '../search/search.config';
import type { OAuthConfig } from '../social/social.config';
import type { TasksConfig } from '../tasks/tasks.config';
import type { TeamsConfig } from '../teams/teams.config';
import type { UploadsConfig } from '../uploads/uploads.config';
import type { UpstreamsConfig } from '../upstreams/upstreams.config';
import type { AppSettings } from './app-settings.config';

export type { ProviderConfig } from '../ai/providers/providers.config';
export type { OAuthClientConfig } from '../social/social.config';
export type { S3StorageConfig } from '../uploads/uploads.config';

/**
 * Typed configuration, validated once at boot; read with `ConfigService<AppConfig, true>`.
 * Each slice is a `registerAs` namespace of the same name, whose shape, variables and defaults
 * live in the owning feature's `*.config.ts`.
 */
export interface AppConfig {
  app: AppSettings;
  /** Prometheus metrics and graceful shutdown (src/metrics/metrics.config.ts). */
  ops: OpsConfig;
  db: DatabaseConfig;
  auth: AuthConfig;
  /** Transactional mail (src/mail). */
  mail: MailConfig;
  twoFactor: TwoFactorConfig;
  /** Social login; a provider without id and secret is not offered. */
  oauth: OAuthConfig;
  openai: ProviderConfig;
  anthropic: ProviderConfig;
  gemini: ProviderConfig;
  ai: AiConfig;
  /** Upstream cooldowns (docs/upstreams.md). */
  upstreams: UpstreamsConfig;
  credits: CreditsConfig;
  /** Referral rewards, in credits. */
  referrals: ReferralsConfig;
  teams: TeamsConfig;
  /** The job queue (src/jobs, pg-boss in schema `pgboss` of the service's database). */
  jobs: JobsConfig;
  /** Chat search (docs/search.md). */
  search: SearchConfig;
  tasks: TasksConfig;
  /** Plugins (docs/plugins.md). */
  plugins: PluginsConfig;
  uploads: UploadsConfig;
  pages: PagesConfig;
  stripe: StripeConfig;
}
