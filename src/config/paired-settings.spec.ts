import { buildConfig } from './app.config';

/** Settings that only make sense as a pair (client id + secret, access key + secret). */
describe('paired settings', () => {
  const error = (raw: Record<string, string>): string => {
    try {
      buildConfig(raw);
    } catch (e) {
      return (e as Error).message;
    }
    return '';
  };

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
