import { AiEnvironment } from '../ai/ai.config';
import { ProvidersEnvironment } from '../ai/providers/providers.config';
import { AuthEnvironment } from '../auth/auth.config';
import { TwoFactorEnvironment } from '../auth/two-factor/two-factor.config';
import { BillingEnvironment } from '../billing/billing.config';
import { CreditsEnvironment } from '../credits/credits.config';
import { DatabaseEnvironment } from '../database/database.config';
import { JobsEnvironment } from '../jobs/jobs.config';
import { MailEnvironment } from '../mail/mail.config';
import { OpsEnvironment } from '../metrics/metrics.config';
import { PagesEnvironment } from '../pages/pages.config';
import { PluginsEnvironment } from '../plugins/plugins.config';
import { ReferralsEnvironment } from '../referrals/referrals.config';
import { SearchEnvironment } from '../search/search.config';
import { SocialEnvironment } from '../social/social.config';
import { TasksEnvironment } from '../tasks/tasks.config';
import { TeamsEnvironment } from '../teams/teams.config';
import { UploadsEnvironment } from '../uploads/uploads.config';
import { UpstreamsEnvironment } from '../upstreams/upstreams.config';
import { AppEnvironment } from './app-settings.config';
import { checkEnvironment, invalidConfiguration } from './feature-environment';

/**
 * Every environment class, each beside the feature that reads it (`src/<feature>/<feature>.config.ts`);
 * `.env.example` documents each variable. A new feature's class is added here once.
 */
const ENVIRONMENTS = {
  app: AppEnvironment,
  db: DatabaseEnvironment,
  auth: AuthEnvironment,
  twoFactor: TwoFactorEnvironment,
  mail: MailEnvironment,
  social: SocialEnvironment,
  providers: ProvidersEnvironment,
  ai: AiEnvironment,
  upstreams: UpstreamsEnvironment,
  jobs: JobsEnvironment,
  tasks: TasksEnvironment,
  search: SearchEnvironment,
  plugins: PluginsEnvironment,
  billing: BillingEnvironment,
  credits: CreditsEnvironment,
  referrals: ReferralsEnvironment,
  teams: TeamsEnvironment,
  uploads: UploadsEnvironment,
  pages: PagesEnvironment,
  ops: OpsEnvironment,
};

/** Each feature's validated variables, by the names of ENVIRONMENTS. */
export type ValidatedEnvironments = {
  [K in keyof typeof ENVIRONMENTS]: InstanceType<(typeof ENVIRONMENTS)[K]>;
};

/**
 * Validates raw environment values once at boot, every feature's class against the same `raw`.
 * Throws a StartupError whose message names every wrong variable of every feature, one per line,
 * e.g. `Invalid configuration:\n  PORT: PORT must not be greater than 65535`.
 */
export function validateEnv(raw: Record<string, unknown>): ValidatedEnvironments {
  const validated: Record<string, object> = {};
  const messages: string[] = [];
  for (const [name, cls] of Object.entries(ENVIRONMENTS)) {
    const checked = checkEnvironment<object>(cls, raw);
    validated[name] = checked.env;
    messages.push(...checked.messages);
  }
  if (messages.length) throw invalidConfiguration(messages);
  return validated as ValidatedEnvironments;
}
