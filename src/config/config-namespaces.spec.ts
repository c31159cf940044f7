import { ConfigModule, ConfigService } from '@nestjs/config';
import { Test } from '@nestjs/testing';
import { UploadsEnvironment, uploadsConfig } from '../uploads/uploads.config';
import type { AppConfig } from './app-config.types';
import { buildConfig } from './app.config';
import { configNamespaces, NAMESPACES } from './config-namespaces';
import { featureEnvironment } from './feature-environment';

/** Resolved secrets, so loading writes no development secret files. */
const raw = {
  AUTH_SECRET: 'n'.repeat(32),
  ENCRYPTION_KEY: Buffer.alloc(32, 2).toString('base64'),
  PORT: '4321',
  UPLOAD_RATE_PER_HOUR: '7',
  REFERRAL_MIN_PAYMENT: '10',
};

/** The boot-time error message for `raw` environment variables, or '' when they are valid. */
const error = (env: Record<string, string>): string => {
  try {
    buildConfig(env);
  } catch (e) {
    return (e as Error).message;
  }
  return '';
};

describe('configuration namespaces', () => {
  it('registers every AppConfig slice under its feature token, from one load', async () => {
    const moduleRef = await Test.createTestingModule({
      imports: [ConfigModule.forRoot({ ignoreEnvFile: true, load: configNamespaces(() => raw) })],
    }).compile();
    const config = moduleRef.get<ConfigService<AppConfig, true>>(ConfigService);
    const expected = buildConfig(raw);
    for (const name of Object.keys(NAMESPACES) as (keyof AppConfig)[]) {
      const slice: unknown = moduleRef.get(NAMESPACES[name].KEY);
      // The feature view and the AppConfig view are the same object.
      expect(slice).toBe(config.get(name, { infer: true }));
      expect(slice).toEqual(expected[name]);
    }
    expect(config.get('app', { infer: true }).port).toBe(4321);
    expect(moduleRef.get(uploadsConfig.KEY)).toMatchObject({ ratePerHour: 7 });
    await moduleRef.close();
  });

  it('lets a feature build its slice alone, with the same rules and messages', () => {
    expect(uploadsConfig()).toEqual(buildConfig(process.env).uploads);
    expect(() => featureEnvironment(UploadsEnvironment, { STORAGE_DRIVER: 'gcs' })).toThrow(
      'Invalid configuration:\n  STORAGE_DRIVER: STORAGE_DRIVER must be one of disk, s3',
    );
  });

  it('names the wrong variables of every feature in one message, one per line', () => {
    const message = error({
      PORT: 'not-a-port',
      UPLOAD_QUOTA_BYTES: '0',
      PLUGIN_ALLOWED_HOSTS: 'a,,b',
      APP_TIMEZONE: 'Mars/Olympus',
    });
    const lines = message.split('\n');
    expect(lines[0]).toBe('Invalid configuration:');
    expect(lines).toHaveLength(5);
    for (const name of ['PORT', 'UPLOAD_QUOTA_BYTES', 'PLUGIN_ALLOWED_HOSTS'])
      expect(lines.some((l) => l.startsWith(`  ${name}: `))).toBe(true);
    expect(lines).toContain('  APP_TIMEZONE: Mars/Olympus is not an IANA time zone');
  });

  it('derives the CNY referral minimum from the credit prices', () => {
    expect(buildConfig({}).referrals.minPaymentCny).toBe(35.72);
    const set = buildConfig({ REFERRAL_MIN_PAYMENT: '10', CREDITS_PER_CNY: '10' });
    expect(set.referrals.minPaymentCny).toBe(100);
    expect(buildConfig({ APP_TIMEZONE: 'Europe/Berlin' }).app.timezone).toBe('Europe/Berlin');
  });
});
