import { getMetadataStorage } from 'class-validator';
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { buildConfig } from './config/app.config';
import { registeredSlices } from './config/config-slice';
import { SharedEnvironment } from './config/shared.config';
import './pending-config-slices';

// Every slice of the app: each lives in a module's `*.config.ts` (loading AppModule would load
// the same files, and the whole app with them), and those of the modules not moved yet.
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
    // Read by the shared slice and (until it moves) by credits': named once.
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
    });
    expect(config.shared).toMatchObject({ sessionMaxAge: 600, creditsPerUsd: 100 });
    expect(config.shared.providers.openai).toEqual({ apiKey: 'k', baseUrl: undefined });
    expect(config.users).toEqual({ adminEmails: ['root@example.com'], sessionCacheTtlMs: 30_000 });
    expect(config.keys).toEqual({ apiKeyRpm: 9 });
    expect(config.lifecycle).toEqual({ shutdownGraceMs: 5 });
    expect(config.billing).toMatchObject({ purchaseMaxCny: 70, purchaseMaxUsd: 1000 });
    // The older view of the modules not yet moved to their own slices.
    expect(config.openai).toEqual({ apiKey: 'k', baseUrl: undefined });
    expect(config.credits).toMatchObject({ purchaseMaxCny: 70, creditsPerCny: 14 });
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
