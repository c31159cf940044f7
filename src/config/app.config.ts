import { type AppSettings, appSettingsConfig } from './app-settings.config';
import { type ConfigSlice, registeredSlices } from './config-slice';
import { checkEnvironment, invalidConfiguration, type RawEnv } from './feature-environment';
import { buildSharedConfig, type SharedConfig, SharedEnvironment } from './shared.config';

/**
 * The whole configuration, by slice name: what `ConfigService` holds. Config knows only its own
 * two slices; a module's slice joins the object when its `*.config.ts` is loaded. Modules read
 * their own slice with `@Inject(slice.KEY)`, never through ConfigService.
 */
export interface AppConfig {
  app: AppSettings;
  shared: SharedConfig;
}

/** AppConfig with every loaded slice, by name (a slice's own type: `ConfigType<typeof slice>`). */
export type LoadedConfig = AppConfig & { [slice: string]: any };

/** The `app` slice is config's own: defined before any module's, so its errors come first. */
const APP_SLICE = appSettingsConfig.definition;

/**
 * Builds the configuration from raw variables (process.env plus test overrides): every
 * registered slice's variables are validated against the same `raw` first, then each slice is
 * built. Throws a StartupError naming each invalid variable once, one per line; in production a
 * missing AUTH_SECRET, ENCRYPTION_KEY, DATABASE_URL, SMTP_URL, or METRICS_TOKEN without
 * METRICS_PORT is such an error.
 */
export function buildConfig(raw: RawEnv): LoadedConfig {
  const slices = [APP_SLICE, ...registeredSlices().filter((s) => s !== APP_SLICE)];
  const messages = new Set<string>();
  const envs = new Map<object, object>();
  // Each class once; a variable two classes still share is named once.
  for (const cls of [SharedEnvironment, ...slices.map((s) => s.environment)]) {
    if (envs.has(cls)) continue;
    const checked = checkEnvironment<object>(cls, raw);
    envs.set(cls, checked.env);
    checked.messages.forEach((m) => messages.add(m));
  }
  if (messages.size) throw invalidConfiguration([...messages]);
  const shared = buildSharedConfig(envs.get(SharedEnvironment) as SharedEnvironment);
  const config: Record<string, object> = { shared };
  for (const slice of slices)
    config[slice.name] = slice.build(envs.get(slice.environment)!, shared);
  return config as LoadedConfig;
}

/** One slice of a loaded configuration, typed (for code outside Nest: the primary, tests). */
export function sliceOf<T extends object>(config: LoadedConfig, slice: ConfigSlice<T>): T {
  return config[slice.definition.name] as T;
}
