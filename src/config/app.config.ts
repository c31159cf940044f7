import { buildAiConfig } from '../ai/ai.config';
import { buildProvidersConfig } from '../ai/providers/providers.config';
import { buildAuthConfig } from '../auth/auth.config';
import { buildTwoFactorConfig } from '../auth/two-factor/two-factor.config';
import { buildStripeConfig } from '../billing/billing.config';
import { buildCreditsConfig } from '../credits/credits.config';
import { buildDatabaseConfig } from '../database/database.config';
import { buildJobsConfig } from '../jobs/jobs.config';
import { buildMailConfig } from '../mail/mail.config';
import { buildOpsConfig } from '../metrics/metrics.config';
import { buildPagesConfig } from '../pages/pages.config';
import { buildPluginsConfig } from '../plugins/plugins.config';
import { buildReferralsConfig } from '../referrals/referrals.config';
import { buildSearchConfig } from '../search/search.config';
import { buildOAuthConfig } from '../social/social.config';
import { buildTasksConfig } from '../tasks/tasks.config';
import { buildTeamsConfig } from '../teams/teams.config';
import { buildUploadsConfig } from '../uploads/uploads.config';
import { buildUpstreamsConfig } from '../upstreams/upstreams.config';
import type { AppConfig } from './app-config.types';
import { buildAppSettings } from './app-settings.config';
import { validateEnv } from './env.validation';

// The shapes live in the features' *.config.ts; modules keep importing them from here.
export type {
  AppConfig,
  OAuthClientConfig,
  ProviderConfig,
  S3StorageConfig,
} from './app-config.types';

/**
 * Builds the typed configuration from raw variables (process.env plus test overrides): every
 * feature's variables are validated first, then each feature's builder makes its slice.
 * Throws a StartupError naming each invalid variable; in production a missing AUTH_SECRET,
 * ENCRYPTION_KEY, DATABASE_URL, SMTP_URL, or METRICS_TOKEN without METRICS_PORT is such an error.
 */
export function buildConfig(raw: Record<string, string | undefined>): AppConfig {
  const env = validateEnv(raw);
  const credits = buildCreditsConfig(env.credits);
  return {
    app: buildAppSettings(env.app),
    ops: buildOpsConfig(env.ops),
    db: buildDatabaseConfig(env.db),
    auth: buildAuthConfig(env.auth),
    mail: buildMailConfig(env.mail),
    twoFactor: buildTwoFactorConfig(env.twoFactor),
    oauth: buildOAuthConfig(env.social),
    ...buildProvidersConfig(env.providers),
    ai: buildAiConfig(env.ai),
    upstreams: buildUpstreamsConfig(env.upstreams),
    credits,
    referrals: buildReferralsConfig(env.referrals, credits),
    teams: buildTeamsConfig(env.teams),
    jobs: buildJobsConfig(env.jobs),
    search: buildSearchConfig(env.search),
    tasks: buildTasksConfig(env.tasks),
    plugins: buildPluginsConfig(env.plugins),
    uploads: buildUploadsConfig(env.uploads),
    pages: buildPagesConfig(env.pages),
    stripe: buildStripeConfig(env.billing),
  };
}
