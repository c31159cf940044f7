import { type ConfigFactory, type ConfigFactoryKeyHost, registerAs } from '@nestjs/config';
import { aiConfig } from '../ai/ai.config';
import { anthropicConfig, geminiConfig, openaiConfig } from '../ai/providers/providers.config';
import { authConfig } from '../auth/auth.config';
import { twoFactorConfig } from '../auth/two-factor/two-factor.config';
import { stripeConfig } from '../billing/billing.config';
import { creditsConfig } from '../credits/credits.config';
import { databaseConfig } from '../database/database.config';
import { jobsConfig } from '../jobs/jobs.config';
import { mailConfig } from '../mail/mail.config';
import { opsConfig } from '../metrics/metrics.config';
import { pagesConfig } from '../pages/pages.config';
import { pluginsConfig } from '../plugins/plugins.config';
import { referralsConfig } from '../referrals/referrals.config';
import { searchConfig } from '../search/search.config';
import { oauthConfig } from '../social/social.config';
import { tasksConfig } from '../tasks/tasks.config';
import { teamsConfig } from '../teams/teams.config';
import { uploadsConfig } from '../uploads/uploads.config';
import { upstreamsConfig } from '../upstreams/upstreams.config';
import type { AppConfig } from './app-config.types';
import { appSettingsConfig } from './app-settings.config';
import type { RawEnv } from './feature-environment';
import { loadConfig } from './load-config';

type Namespace<T extends Record<string, any>> = ConfigFactory<T> & ConfigFactoryKeyHost<T>;

/**
 * Each AppConfig slice and the feature namespace (`registerAs`) that owns it; the type checker
 * makes every slice name a namespace whose value has the slice's shape.
 */
export const NAMESPACES: { [K in keyof AppConfig]: Namespace<AppConfig[K]> } = {
  app: appSettingsConfig,
  ops: opsConfig,
  db: databaseConfig,
  auth: authConfig,
  mail: mailConfig,
  twoFactor: twoFactorConfig,
  oauth: oauthConfig,
  openai: openaiConfig,
  anthropic: anthropicConfig,
  gemini: geminiConfig,
  ai: aiConfig,
  upstreams: upstreamsConfig,
  credits: creditsConfig,
  referrals: referralsConfig,
  teams: teamsConfig,
  jobs: jobsConfig,
  search: searchConfig,
  tasks: tasksConfig,
  plugins: pluginsConfig,
  uploads: uploadsConfig,
  pages: pagesConfig,
  stripe: stripeConfig,
};

/**
 * The `load` of `ConfigModule.forRoot`: every namespace of NAMESPACES, under the same token as
 * the feature's own export (so `@Inject(uploadsConfig.KEY)` works), all taken from one
 * `loadConfig(raw())`: validated once with every error in one message, development secrets
 * resolved. `raw` is read when Nest builds the first namespace, after `.env` is applied.
 */
export function configNamespaces(raw: () => RawEnv): ConfigFactory[] {
  let config: AppConfig | undefined;
  const loaded = () => (config ??= loadConfig(raw()));
  return (Object.keys(NAMESPACES) as (keyof AppConfig)[]).map((name) =>
    registerAs(name, () => loaded()[name]),
  );
}
