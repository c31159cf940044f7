import { getMetadataStorage } from 'class-validator';
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { buildConfig } from './config/app.config';
import { registeredSlices } from './config/config-slice';
import { SharedEnvironment } from './config/shared.config';

// Every slice of the app: each lives in a module's `*.config.ts` (loading AppModule would load
// the same files, and the whole app with them).
for (const file of readdirSync(__dirname, { recursive: true, encoding: 'utf8' }))
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- files found at run time
  if (file.endsWith('.config.ts')) require(join(__dirname, file));

const error = (raw: Record<string, string>): string => {
  try {
    buildConfig(raw);
  } catch (e) {
    return (e as Error).message;
  }
  return '';
};

/** The variables a class validates (an undecorated property is validated by another class). */
const variablesOf = (cls: new () => object): string[] =>
  getMetadataStorage()
    .getTargetValidationMetadatas(cls, '', true, false)
    .map((m) => m.propertyName);

describe("the app's configuration", () => {
  it('names the wrong variables of every module in one message, one per line', () => {
    const message = error({
      PORT: 'not-a-port',
      UPLOAD_QUOTA_BYTES: '0',
      PLUGIN_ALLOWED_HOSTS: 'a,,b',
      APP_TIMEZONE: 'Mars/Olympus',
      API_KEY_RPM: '0',
      SESSION_CACHE_TTL_MS: '-1',
      CREDITS_PER_USD: '0',
    });
    const lines = message.split('\n');
    expect(lines[0]).toBe('Invalid configuration:');
    expect(lines).toHaveLength(8);
    for (const name of ['PORT', 'UPLOAD_QUOTA_BYTES', 'PLUGIN_ALLOWED_HOSTS', 'API_KEY_RPM'])
      expect(lines.some((l) => l.startsWith(`  ${name}: `))).toBe(true);
    expect(lines.filter((l) => l.startsWith('  CREDITS_PER_USD: '))).toHaveLength(1);
    expect(lines).toContain('  APP_TIMEZONE: Mars/Olympus is not an IANA time zone');
  });

  it('derives the CNY referral minimum from the credit prices', () => {
    expect(buildConfig({}).referrals.minPaymentCny).toBe(35.72);
    const set = buildConfig({ REFERRAL_MIN_PAYMENT: '10', CREDITS_PER_CNY: '10' });
    expect(set.referrals.minPaymentCny).toBe(100);
    expect(buildConfig({ APP_TIMEZONE: 'Europe/Berlin' }).app.timezone).toBe('Europe/Berlin');
  });

  it('moves no value: the shared slice and the modules read what they read before', () => {
    const config = buildConfig({
      AUTH_SESSION_MAX_AGE: '600',
      ADMIN_EMAILS: 'Root@Example.com',
      API_KEY_RPM: '9',
      SHUTDOWN_GRACE_MS: '5',
      OPENAI_API_KEY: 'k',
      PURCHASE_MAX_CNY: '70',
      SIGNUP_CREDITS: '7',
      EMBEDDINGS_MODEL: 'text-embedding-3-small',
      MODELS_FILE: 'models.json',
      HOLD_TTL_SECONDS: '30',
      ANTHROPIC_PROMPT_CACHE: 'true',
    });
    expect(config.shared).toMatchObject({ sessionMaxAge: 600, creditsPerUsd: 100 });
    expect(config.shared.providers.openai).toEqual({ apiKey: 'k', baseUrl: undefined });
    expect(config.users).toEqual({ adminEmails: ['root@example.com'], sessionCacheTtlMs: 30_000 });
    expect(config.keys).toEqual({ apiKeyRpm: 9 });
    expect(config.lifecycle).toEqual({ shutdownGraceMs: 5 });
    expect(config.billing).toMatchObject({ purchaseMaxCny: 70, purchaseMaxUsd: 1000 });
    // Values two modules read are shared: the sign-up grant (auth, ai) and the embeddings model
    // of search (search, ai).
    expect(config.shared).toMatchObject({
      signupCredits: 7,
      embeddings: { model: 'text-embedding-3-small', dimensions: 256 },
    });
    expect(config.models).toEqual({ modelsFile: 'models.json', maxOutputTokens: 1000 });
    expect(config.credits).toMatchObject({ holdTtlSeconds: 30, batchStatements: true });
    expect(config.ai).toMatchObject({ anthropicPromptCache: true, ssePingMs: 15_000 });
    // Each slice holds only its own variables.
    expect(config.auth).not.toHaveProperty('signupCredits');
    expect(config.search).toEqual({ indexDelaySeconds: 5 });
    expect(config.credits).not.toHaveProperty('purchaseMaxCny');
  });

  it('documents every variable of every slice in .env.example', () => {
    const example = readFileSync(resolve(__dirname, '..', '.env.example'), 'utf8');
    const documented = new Set(
      [...example.matchAll(/^#?\s*([A-Z][A-Z0-9_]*)=/gm)].map((m) => m[1]),
    );
    const classes = [SharedEnvironment, ...registeredSlices().map((s) => s.environment)];
    const variables = [...new Set(classes.flatMap(variablesOf))];
    expect(variables.length).toBeGreaterThan(100);
    expect(variables.filter((v) => !documented.has(v))).toEqual([]);
  });
});
