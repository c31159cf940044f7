import { issueState, STATE_TTL_SECONDS, verifyState } from './oauth-state';

const SECRET = 's'.repeat(40);
const NOW = 1_700_000_000_000;

describe('OAuth state bound to the browser by a signed cookie', () => {
  it('verifies its own state and returns the stored callbackUrl', () => {
    const { state, cookie } = issueState(SECRET, 'google', '/dashboard/x', NOW);
    expect(state).toMatch(/^[\w-]{43}$/);
    expect(verifyState(SECRET, 'google', cookie, state, NOW + 1000)).toEqual({
      callbackUrl: '/dashboard/x',
    });
  });

  it('gives `{}` when no callbackUrl was stored', () => {
    const { state, cookie } = issueState(SECRET, 'github', undefined, NOW);
    expect(verifyState(SECRET, 'github', cookie, state, NOW)).toEqual({});
  });

  it('issues a different state every time', () => {
    const a = issueState(SECRET, 'google', undefined, NOW);
    const b = issueState(SECRET, 'google', undefined, NOW);
    expect(a.state).not.toBe(b.state);
  });

  it('refuses another state, another provider, another secret, expiry and tampering', () => {
    const { state, cookie } = issueState(SECRET, 'google', '/d', NOW);
    const [payload, sig] = cookie.split('.');
    const forged = Buffer.from(
      JSON.stringify({ p: 'google', n: state, c: 'https://evil.example.com', e: NOW + 1e6 }),
    ).toString('base64url');
    const cases: [unknown, unknown, string, number, string][] = [
      [cookie, 'x'.repeat(43), 'google', NOW, SECRET],
      [cookie, `${state}x`, 'google', NOW, SECRET],
      [cookie, '', 'google', NOW, SECRET],
      [cookie, undefined, 'google', NOW, SECRET],
      [cookie, [state], 'google', NOW, SECRET],
      [undefined, state, 'google', NOW, SECRET],
      [cookie, state, 'github', NOW, SECRET],
      [cookie, state, 'google', NOW, 't'.repeat(40)],
      [cookie, state, 'google', NOW + STATE_TTL_SECONDS * 1000, SECRET],
      [`${forged}.${sig}`, state, 'google', NOW, SECRET],
      [`${payload}.${sig}.x`, state, 'google', NOW, SECRET],
      [payload, state, 'google', NOW, SECRET],
      [`${payload}.`, state, 'google', NOW, SECRET],
    ];
    for (const [c, s, provider, now, secret] of cases)
      expect(verifyState(secret, provider as 'google', c, s, now)).toBeNull();
  });
});
