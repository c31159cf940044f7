import { AppError } from '../common/errors/app-error';
import { UpstreamsErrorCode } from './upstreams.errors';
import {
  checkUpstreamUrl,
  DEFAULT_UPSTREAM_ALLOW,
  type UpstreamAddressClass,
} from './upstream-address';
import { buildConfig, sliceOf } from '../config/app.config';
import { upstreamsConfig } from './upstreams.config';

/** The code `checkUpstreamUrl` throws for `url` under `allowed`, or 'ok'. */
async function verdict(url: string, allowed: readonly UpstreamAddressClass[]): Promise<string> {
  try {
    await checkUpstreamUrl(url, allowed);
    return 'ok';
  } catch (e) {
    if (e instanceof AppError) return e.code;
    throw e;
  }
}

describe('checkUpstreamUrl', () => {
  const FORBIDDEN = UpstreamsErrorCode.UPSTREAM_URL_FORBIDDEN;

  it('by default allows loopback and private networks, refuses link-local, metadata and unusable addresses', async () => {
    const cases: [string, string][] = [
      ['http://127.0.0.1:8080/v1', 'ok'],
      ['http://[::1]:8080/v1', 'ok'],
      ['http://localhost:8080/v1', 'ok'],
      ['http://10.0.0.5/v1', 'ok'],
      ['http://172.20.1.1/v1', 'ok'],
      ['http://192.168.1.20:11434/v1', 'ok'],
      ['http://[fd12:3456::1]/v1', 'ok'],
      ['https://8.8.8.8/v1', 'ok'],
      ['http://169.254.169.254/latest', FORBIDDEN],
      ['http://169.254.1.1/v1', FORBIDDEN],
      ['http://[fe80::1]/v1', FORBIDDEN],
      ['http://[fd00:ec2::254]/v1', FORBIDDEN],
      ['http://[::ffff:169.254.169.254]/v1', FORBIDDEN],
      ['http://100.100.100.200/v1', FORBIDDEN],
      ['http://168.63.129.16/v1', FORBIDDEN],
      ['http://metadata.google.internal/v1', FORBIDDEN],
      ['http://Metadata.Goog/v1', FORBIDDEN],
      ['http://0.0.0.0/v1', FORBIDDEN],
      ['http://[::]/v1', FORBIDDEN],
      ['http://224.0.0.1/v1', FORBIDDEN],
      ['http://100.64.0.1/v1', FORBIDDEN],
    ];
    const got: [string, string][] = [];
    for (const [url] of cases) got.push([url, await verdict(url, DEFAULT_UPSTREAM_ALLOW)]);
    expect(got).toEqual(cases);
  });

  it('allows a class only when listed; metadata addresses need `metadata`, whatever their class', async () => {
    expect(await verdict('http://127.0.0.1/v1', [])).toBe(FORBIDDEN);
    expect(await verdict('http://localhost/v1', [])).toBe(FORBIDDEN);
    expect(await verdict('https://8.8.8.8/v1', [])).toBe('ok');
    expect(await verdict('http://169.254.1.1/v1', ['link-local'])).toBe('ok');
    expect(await verdict('http://169.254.169.254/v1', ['link-local'])).toBe(FORBIDDEN);
    expect(await verdict('http://169.254.169.254/v1', ['metadata'])).toBe('ok');
    expect(await verdict('http://[fd00:ec2::254]/v1', ['unique-local'])).toBe(FORBIDDEN);
    expect(await verdict('http://100.100.100.200/v1', ['cgnat'])).toBe(FORBIDDEN);
    expect(await verdict('http://100.64.0.1/v1', ['cgnat'])).toBe('ok');
    expect(await verdict('http://metadata.google.internal/v1', ['link-local'])).toBe(FORBIDDEN);
  });

  it('UPSTREAM_ALLOW_PRIVATE: a list of classes, `none` for public addresses only; others fail the boot', () => {
    const allow = (v?: string) =>
      sliceOf(buildConfig(v === undefined ? {} : { UPSTREAM_ALLOW_PRIVATE: v }), upstreamsConfig)
        .allowPrivate;
    expect(allow()).toEqual(['loopback', 'private', 'unique-local']);
    expect(allow('')).toEqual(['loopback', 'private', 'unique-local']);
    expect(allow('none')).toEqual([]);
    expect(allow(' Loopback , metadata')).toEqual(['loopback', 'metadata']);
    expect(() => allow('loopback,everything')).toThrow(/UPSTREAM_ALLOW_PRIVATE/);
  });
});
