import { Clock } from '../common/clock/clock';
import { buildConfig, sliceOf } from '../config/app.config';
import { UploadLinks } from './upload-links';
import { uploadsConfig } from './uploads.config';

/** UploadLinks with the shared and uploads slices built from `env`. */
const linksOf = (env: Record<string, string>, clock: Clock) => {
  const config = buildConfig(env);
  return new UploadLinks(config.shared, sliceOf(config, uploadsConfig), clock);
};

class FixedClock extends Clock {
  constructor(public at: Date) {
    super();
  }
  now(): Date {
    return this.at;
  }
}

const NAME = '1747700000000-0123456789abcdef0123456789abcdef-照片 (1).png';
const START = new Date('2030-01-01T00:00:00.000Z');

const linksWith = (env: Record<string, string>, clock: Clock) =>
  linksOf({ AUTH_SECRET: 's'.repeat(32), ...env }, clock);

describe('UploadLinks', () => {
  let clock: FixedClock;
  let links: UploadLinks;
  beforeEach(() => {
    clock = new FixedClock(START);
    links = linksWith({ UPLOAD_URL_TTL_SECONDS: '600' }, clock);
  });
  const parse = (url: string) => new URL(url, 'http://x');

  it('signs a relative URL of the encoded name, valid for the TTL', () => {
    const { url, expiresAt } = links.link(NAME);
    const u = parse(url);
    expect(url.startsWith(`/uploads/${encodeURIComponent(NAME)}?exp=`)).toBe(true);
    expect(u.searchParams.get('exp')).toBe(String(START.getTime() / 1000 + 600));
    expect(u.searchParams.get('sig')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(expiresAt).toEqual(new Date(START.getTime() + 600_000));
    expect(links.signedUrl(NAME)).toBe(url);
  });

  it('verifies its own link until it expires', () => {
    const u = parse(links.signedUrl(NAME));
    const [exp, sig] = [u.searchParams.get('exp'), u.searchParams.get('sig')];
    expect(links.verify(NAME, exp, sig)).toBe(true);
    clock.at = new Date(START.getTime() + 599_999);
    expect(links.verify(NAME, exp, sig)).toBe(true);
    clock.at = new Date(START.getTime() + 600_000);
    expect(links.verify(NAME, exp, sig)).toBe(false);
  });

  it('refuses another name, another exp, a changed signature and malformed values', () => {
    const u = parse(links.signedUrl(NAME));
    const [exp, sig] = [u.searchParams.get('exp')!, u.searchParams.get('sig')!];
    const flipped = (sig[0] === 'A' ? 'B' : 'A') + sig.slice(1);
    expect(links.verify(NAME.replace('png', 'gif'), exp, sig)).toBe(false);
    expect(links.verify(NAME, String(Number(exp) + 1), sig)).toBe(false);
    expect(links.verify(NAME, `0${exp}`, sig)).toBe(false);
    expect(links.verify(NAME, exp, flipped)).toBe(false);
    expect(links.verify(NAME, exp, sig.slice(1))).toBe(false);
    expect(links.verify(NAME, exp, Buffer.from(sig, 'base64url').toString('hex'))).toBe(false);
    for (const bad of [undefined, null, 42, [exp], '', '1e12', ' 1', '-1'])
      expect(links.verify(NAME, bad, sig)).toBe(false);
    for (const bad of [undefined, [sig], '', `${sig}=`])
      expect(links.verify(NAME, exp, bad)).toBe(false);
  });

  it('depends on AUTH_SECRET: another secret signs differently', () => {
    const other = linksOf({ AUTH_SECRET: 't'.repeat(32), UPLOAD_URL_TTL_SECONDS: '600' }, clock);
    const u = parse(other.signedUrl(NAME));
    expect(links.verify(NAME, u.searchParams.get('exp'), u.searchParams.get('sig'))).toBe(false);
    // The key is derived, not the secret itself: the link never carries AUTH_SECRET.
    expect(other.signedUrl(NAME)).not.toContain('tttt');
  });

  it('refuses to start without a secret', () => {
    expect(() => linksOf({}, clock)).toThrow(/AUTH_SECRET/);
  });
});
