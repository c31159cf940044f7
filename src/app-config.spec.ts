import { buildConfig } from './config/app.config';
// The slices these tests read, registered as the app registers them: by loading their files.
import './ai/ai.config';
import './credits/credits.config';
import './lifecycle/lifecycle.config';
import './mail/mail.config';
import './metrics/metrics.config';
import './models/models.config';
import './plugins/plugins.config';
import './social/social.config';
import './uploads/uploads.config';
import './auth/auth.config';

/** The boot-time error message for `raw` environment variables, or '' when they are valid. */
const error = (raw: Record<string, string>): string => {
  try {
    buildConfig(raw);
  } catch (e) {
    return (e as Error).message;
  }
  return '';
};

/** Upload storage settings (STORAGE_DRIVER, S3_*): defaults, typing and boot-time errors. */
describe('upload storage configuration', () => {
  const s3 = { STORAGE_DRIVER: 's3', S3_BUCKET: 'my-uploads' };

  it('defaults to the disk driver, without S3 settings', () => {
    const { uploads } = buildConfig({});
    expect(uploads.driver).toBe('disk');
    expect(uploads.s3).toBeUndefined();
    // S3_* are ignored (not required, not checked) for disk.
    expect(buildConfig({ S3_REGION: 'us-west-2' }).uploads.s3).toBeUndefined();
  });

  it('types the s3 settings with their defaults', () => {
    expect(buildConfig(s3).uploads).toMatchObject({
      driver: 's3',
      s3: {
        bucket: 'my-uploads',
        region: 'us-east-1',
        endpoint: undefined,
        forcePathStyle: false,
        accessKeyId: undefined,
        secretAccessKey: undefined,
        keyPrefix: '',
      },
    });
    const full = buildConfig({
      ...s3,
      S3_REGION: 'eu-central-1',
      S3_ENDPOINT: 'http://minio:9000',
      S3_FORCE_PATH_STYLE: 'true',
      S3_ACCESS_KEY_ID: 'AKIA',
      S3_SECRET_ACCESS_KEY: 'secret',
      S3_KEY_PREFIX: 'prod/uploads/',
    });
    expect(full.uploads.s3).toEqual({
      bucket: 'my-uploads',
      region: 'eu-central-1',
      endpoint: 'http://minio:9000',
      forcePathStyle: true,
      accessKeyId: 'AKIA',
      secretAccessKey: 'secret',
      keyPrefix: 'prod/uploads/',
    });
  });

  it.each([
    [{ STORAGE_DRIVER: 'gcs' }, /STORAGE_DRIVER must be one of disk, s3/],
    [{ STORAGE_DRIVER: 's3' }, /S3_BUCKET is required when STORAGE_DRIVER=s3/],
    [{ ...s3, S3_BUCKET: 'a/b' }, /S3_BUCKET must be a bucket name/],
    [{ ...s3, S3_REGION: 'US East' }, /S3_REGION must be a region name/],
    [{ ...s3, S3_ENDPOINT: 'minio:9000' }, /S3_ENDPOINT/],
    [{ ...s3, S3_ACCESS_KEY_ID: 'AKIA' }, /must be set together/],
    [{ ...s3, S3_KEY_PREFIX: '/uploads/' }, /S3_KEY_PREFIX must not start with "\/"/],
  ])('refuses %j', (raw, message) => {
    expect(error(raw)).toMatch(message);
  });

  it('never puts a secret in the error message', () => {
    const message = error({ ...s3, S3_SECRET_ACCESS_KEY: 'do-not-print-me' });
    expect(message).toMatch(/S3_ACCESS_KEY_ID/);
    expect(message).not.toContain('do-not-print-me');
  });
});

/** Access to downloads: signed-link lifetime and the miss limit. */
describe('upload access configuration', () => {
  it('defaults to one hour links and 20 misses a minute', () => {
    expect(buildConfig({}).uploads).toMatchObject({ urlTtlSeconds: 3600, missLimitPerMinute: 20 });
    const set = buildConfig({ UPLOAD_URL_TTL_SECONDS: '600', UPLOAD_MISS_LIMIT_PER_MINUTE: '5' });
    expect(set.uploads).toMatchObject({ urlTtlSeconds: 600, missLimitPerMinute: 5 });
  });

  it('defaults to a 1 GiB quota and 100 uploads an hour per user', () => {
    expect(buildConfig({}).uploads).toMatchObject({ quotaBytes: 1073741824, ratePerHour: 100 });
    const set = buildConfig({ UPLOAD_QUOTA_BYTES: '5000000000', UPLOAD_RATE_PER_HOUR: '7' });
    expect(set.uploads).toMatchObject({ quotaBytes: 5_000_000_000, ratePerHour: 7 });
  });

  it.each([
    [{ UPLOAD_URL_TTL_SECONDS: '59' }, /UPLOAD_URL_TTL_SECONDS/],
    [{ UPLOAD_URL_TTL_SECONDS: '604801' }, /UPLOAD_URL_TTL_SECONDS/],
    [{ UPLOAD_URL_TTL_SECONDS: 'an hour' }, /UPLOAD_URL_TTL_SECONDS/],
    [{ UPLOAD_MISS_LIMIT_PER_MINUTE: '0' }, /UPLOAD_MISS_LIMIT_PER_MINUTE/],
    [{ UPLOAD_QUOTA_BYTES: '0' }, /UPLOAD_QUOTA_BYTES/],
    [{ UPLOAD_QUOTA_BYTES: '1 GiB' }, /UPLOAD_QUOTA_BYTES/],
    [{ UPLOAD_RATE_PER_HOUR: '0' }, /UPLOAD_RATE_PER_HOUR/],
  ])('refuses %j', (raw, message) => {
    expect(error(raw)).toMatch(message);
  });
});

/** Settings that only make sense as a pair (client id + secret, access key + secret). */
describe('paired settings', () => {
  it.each([
    ['GOOGLE_CLIENT_ID', 'GOOGLE_CLIENT_SECRET'],
    ['GITHUB_CLIENT_ID', 'GITHUB_CLIENT_SECRET'],
  ])('%s and %s: both or neither', (id, secret) => {
    expect(error({})).toBe('');
    expect(error({ [id]: 'client-id', [secret]: 'client-secret' })).toBe('');
    expect(error({ [id]: '', [secret]: '' })).toBe('');
    const expected = `${id} and ${secret} must be set together`;
    expect(error({ [id]: 'client-id' })).toContain(expected);
    expect(error({ [secret]: 'client-secret' })).toContain(expected);
    // The message names the variables, never the value given.
    expect(error({ [secret]: 'client-secret' })).not.toContain('client-secret');
  });
});

/** ENCRYPTION_KEY: 32 bytes in base64, required in production. */
describe('encryption key configuration', () => {
  const prod = {
    NODE_ENV: 'production',
    DATABASE_URL: 'postgres://u@db/app',
    AUTH_SECRET: 'x'.repeat(32),
    METRICS_TOKEN: 'm'.repeat(16),
    SMTP_URL: 'smtp://mail.internal:587',
  };
  const key = Buffer.alloc(32, 1).toString('base64');

  it('is required in production and must be 32 bytes of base64', () => {
    expect(error(prod)).toMatch(/ENCRYPTION_KEY/);
    expect(error({ ...prod, ENCRYPTION_KEY: key })).toBe('');
    for (const bad of [Buffer.alloc(16).toString('base64'), 'not base64 at all', key.slice(0, -1)])
      expect(error({ ENCRYPTION_KEY: bad })).toMatch(/ENCRYPTION_KEY must be 32 bytes/);
    expect(buildConfig({ ENCRYPTION_KEY: key }).shared.encryptionKey).toBe(key);
    // Unset outside production: resolved later, by loadConfig (a development key).
    expect(buildConfig({}).shared.encryptionKey).toBe('');
  });
});

/** METRICS_TOKEN / METRICS_PORT: /metrics is never public by accident in production. */
describe('metrics configuration', () => {
  const prod = {
    NODE_ENV: 'production',
    DATABASE_URL: 'postgres://u@db/app',
    AUTH_SECRET: 'x'.repeat(32),
    ENCRYPTION_KEY: Buffer.alloc(32, 1).toString('base64'),
    SMTP_URL: 'smtp://mail.internal:587',
  };

  it('requires a token or a separate port in production, and a token of 16 characters', () => {
    expect(error(prod)).toMatch(/METRICS_TOKEN or METRICS_PORT is required in production/);
    expect(error({ ...prod, METRICS_TOKEN: 't'.repeat(16) })).toBe('');
    expect(error({ ...prod, METRICS_PORT: '9464' })).toBe('');
    expect(error({ METRICS_TOKEN: 'short' })).toMatch(/at least 16 characters/);
    expect(buildConfig({}).ops).toEqual({ metricsToken: undefined, metricsPort: undefined });
    expect(buildConfig({}).lifecycle).toEqual({ shutdownGraceMs: 10_000 });
  });
});

/** Transactional mail: SMTP_URL is required in production; elsewhere mails become files. */
describe('mail configuration', () => {
  const prod = {
    NODE_ENV: 'production',
    DATABASE_URL: 'postgres://u@db/app',
    AUTH_SECRET: 'x'.repeat(32),
    ENCRYPTION_KEY: Buffer.alloc(32, 1).toString('base64'),
    METRICS_TOKEN: 'm'.repeat(16),
  };

  it('stops a production start without SMTP_URL with one sentence naming it', () => {
    expect(error(prod)).toBe(
      'Invalid configuration:\n  SMTP_URL: SMTP_URL is required in production (e.g. smtp://user:pass@host:587)',
    );
    expect(error({ ...prod, SMTP_URL: 'smtps://u:p@mail.example.com:465' })).toBe('');
    expect(error({ SMTP_URL: 'http://mail.example.com' })).toMatch(/SMTP_URL must be an smtp/);
  });

  it('defaults: no SMTP server, files under .data/mail, a From address, login without verification', () => {
    const config = buildConfig({});
    expect(config.mail).toEqual({
      smtpUrl: undefined,
      from: 'AI Chat <no-reply@localhost>',
      dir: expect.stringMatching(/\/\.data\/mail$/),
    });
    expect(config.auth.requireEmailVerification).toBe(false);
    expect(buildConfig({ REQUIRE_EMAIL_VERIFICATION: 'true' }).auth.requireEmailVerification).toBe(
      true,
    );
  });
});

/** Plugin settings: defaults and the shape of the SSRF allow-list. */
describe('plugin configuration', () => {
  it('defaults to a 15 s timeout, no allowed hosts, and bounded built-in tools', () => {
    expect(buildConfig({}).plugins).toEqual({
      toolTimeoutMs: 15_000,
      allowedHosts: [],
      builtinTimeoutMs: 2000,
      builtinMemoryMb: 128,
      builtinWorkers: 2,
    });
  });

  it("reads the built-in tools' time, memory and process limits, and refuses one out of range", () => {
    const env = { BUILTIN_TOOL_TIMEOUT_MS: '500', BUILTIN_TOOL_MEMORY_MB: '256' };
    expect(buildConfig({ ...env, BUILTIN_TOOL_WORKERS: '1' }).plugins).toMatchObject({
      builtinTimeoutMs: 500,
      builtinMemoryMb: 256,
      builtinWorkers: 1,
    });
    expect(() => buildConfig({ BUILTIN_TOOL_MEMORY_MB: '16' })).toThrow(/BUILTIN_TOOL_MEMORY_MB/);
  });

  it('reads host and host:port entries, lower-cased', () => {
    const { plugins } = buildConfig({
      PLUGIN_ALLOWED_HOSTS: ' MCP.internal , 10.1.2.3:8080,[::1]:9000',
      PLUGIN_TOOL_TIMEOUT_MS: '2500',
    });
    expect(plugins).toMatchObject({
      toolTimeoutMs: 2500,
      allowedHosts: ['mcp.internal', '10.1.2.3:8080', '[::1]:9000'],
    });
  });

  it.each(['http://mcp.internal', 'mcp.internal/path', 'a,,b', 'user@host'])(
    'refuses PLUGIN_ALLOWED_HOSTS=%s at boot',
    (value) => {
      expect(error({ PLUGIN_ALLOWED_HOSTS: value })).toMatch(/PLUGIN_ALLOWED_HOSTS/);
    },
  );

  it('refuses a timeout under 100 ms', () => {
    expect(error({ PLUGIN_TOOL_TIMEOUT_MS: '50' })).toMatch(/PLUGIN_TOOL_TIMEOUT_MS/);
  });
});

/** APP_BASE_URL: the public address, defaulting to this host on the port served. */
describe('base address', () => {
  it('follows PORT when APP_BASE_URL is unset, and is used as given otherwise', () => {
    expect(buildConfig({}).app.baseUrl).toBe('http://localhost:3000');
    expect(buildConfig({ PORT: '4100' }).app.baseUrl).toBe('http://localhost:4100');
    expect(
      buildConfig({ PORT: '4100', APP_BASE_URL: 'https://chat.example.com/' }).app.baseUrl,
    ).toBe('https://chat.example.com');
  });
});

/** Output-token caps: MAX_OUTPUT_TOKENS (spec routes) and PLAN_MAX_OUTPUT_TOKENS (wire routes). */
describe('output-token caps', () => {
  it('defaults to the spec limit of 1000 and FREE 4096, BASIC 16384, PRO the model maximum', () => {
    const { ai, models } = buildConfig({});
    expect(models.maxOutputTokens).toBe(1000);
    expect(ai.planMaxOutputTokens).toEqual({ FREE: 4096, BASIC: 16384, PRO: null });
  });

  it('reads PLAN:tokens entries over the defaults; an empty value lifts the plan cap', () => {
    const { ai, models } = buildConfig({
      MAX_OUTPUT_TOKENS: '8000',
      PLAN_MAX_OUTPUT_TOKENS: ' FREE: 2048 , BASIC:',
    });
    expect(models.maxOutputTokens).toBe(8000);
    expect(ai.planMaxOutputTokens).toEqual({ FREE: 2048, BASIC: null, PRO: null });
  });

  it.each(['FREE=4096', 'GOLD:100', 'FREE:0', 'FREE:-5', 'FREE:4096,,PRO:', '{"FREE":4096}'])(
    'refuses PLAN_MAX_OUTPUT_TOKENS=%s at boot',
    (value) => {
      expect(error({ PLAN_MAX_OUTPUT_TOKENS: value })).toMatch(/PLAN_MAX_OUTPUT_TOKENS/);
    },
  );

  it.each(['0', '1.5', '2000000'])('refuses MAX_OUTPUT_TOKENS=%s at boot', (value) => {
    expect(error({ MAX_OUTPUT_TOKENS: value })).toMatch(/MAX_OUTPUT_TOKENS/);
  });
});

/** BATCH_STATEMENTS: natural batching of the admission and settlement statements. */
describe('statement batching configuration', () => {
  it('is on by default, and off with false', () => {
    expect(buildConfig({}).credits.batchStatements).toBe(true);
    expect(buildConfig({ BATCH_STATEMENTS: 'false' }).credits.batchStatements).toBe(false);
    expect(buildConfig({ BATCH_STATEMENTS: 'true' }).credits.batchStatements).toBe(true);
    expect(error({ BATCH_STATEMENTS: '' })).toBe('');
  });
});

/** ANTHROPIC_PROMPT_CACHE: cache breakpoints on requests to Anthropic. */
describe('Anthropic prompt caching configuration', () => {
  it('is off by default, and on with true', () => {
    expect(buildConfig({}).ai.anthropicPromptCache).toBe(false);
    expect(buildConfig({ ANTHROPIC_PROMPT_CACHE: 'true' }).ai.anthropicPromptCache).toBe(true);
  });
});
