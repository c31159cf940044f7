import * as jwt from 'jsonwebtoken';
import { buildConfig } from '../../../src/config/app.config';
import { UsersService } from '../../../src/users/users.service';
import { ledgerOf, newUser, PASSWORD } from '../../support/factories';
import {
  oauthDance,
  pair,
  setCookie,
  type DanceOptions,
  type Provider,
} from '../../support/oauth-browser';
import { createTestApp, type TestApp } from '../../support/test-app';
import { OAUTH_CLIENTS, OAuthTestServer } from '../../servers/oauth-server';

describe('Social login over OAuth 2.0 (local Google and GitHub server)', () => {
  const oauth = new OAuthTestServer();
  let t: TestApp;

  const signIn = (provider: Provider, opts: DanceOptions = {}) =>
    oauthDance(t.http, oauth, provider, opts);
  const accounts = (userId: string) =>
    t.db.query('SELECT provider, "providerAccountId" FROM accounts WHERE "userId" = $1', [userId]);
  const sessionUser = async (session: string) =>
    (await t.http.get('/api/auth/session').set('Cookie', session).expect(200)).body.user;
  const uniq = (p: string) => `${p}-${Math.random().toString(36).slice(2, 10)}@example.com`;

  beforeAll(async () => {
    await oauth.start();
    t = await createTestApp({
      ...oauth.env(),
      CORS_ORIGINS: 'http://app.test:5173',
      ADMIN_EMAILS: 'boss@example.com',
    });
  });
  afterAll(async () => {
    await t.close();
    await oauth.stop();
  });
  beforeEach(() => oauth.reset());

  it('GET /api/auth/providers lists google and github (NextAuth shape) next to credentials', async () => {
    const res = await t.http.get('/api/auth/providers').expect(200);
    expect(Object.keys(res.body).sort()).toEqual(['credentials', 'github', 'google']);
    for (const [id, name] of [
      ['google', 'Google'],
      ['github', 'GitHub'],
    ]) {
      expect(res.body[id]).toEqual({
        id,
        name,
        type: 'oauth',
        signinUrl: `http://localhost:3000/api/auth/signin/${id}`,
        callbackUrl: `http://localhost:3000/api/auth/callback/${id}`,
      });
    }
  });

  it('sign-in redirects to Google with the client, callback, scope and a state bound by a cookie', async () => {
    const res = await t.http.get('/api/auth/signin/google').expect(302);
    const to = new URL(res.headers.location);
    expect(to.origin + to.pathname).toBe(`${oauth.url}/google/o/oauth2/v2/auth`);
    expect(Object.fromEntries(to.searchParams)).toEqual({
      response_type: 'code',
      client_id: OAUTH_CLIENTS.google.id,
      redirect_uri: 'http://localhost:3000/api/auth/callback/google',
      scope: 'openid email profile',
      state: expect.stringMatching(/^[\w-]{43}$/),
    });
    const cookie = setCookie(res, 'oauth_state_google')!;
    expect(cookie).toMatch(/;\s*HttpOnly/i);
    expect(cookie).toMatch(/;\s*SameSite=Lax/i);
    expect(cookie).toMatch(/;\s*Path=\/api\/auth\/callback\/google(;|$)/i);
    expect(cookie).toMatch(/;\s*Max-Age=600/i);
    expect(res.headers['cache-control']).toBe('no-store');
  });

  it('sign-in only ever starts an authorization, whatever code or error its URL carries', async () => {
    const res = await t.http.get('/api/auth/signin/github?code=abc&state=x&error=y').expect(302);
    expect(res.headers.location.startsWith(`${oauth.url}/github/login/oauth/authorize?`)).toBe(
      true,
    );
    expect(oauth.calls('github', 'token')).toHaveLength(0);
  });

  describe('accounts', () => {
    it('a first Google login creates the user (no password, 100 credits as one BONUS entry) and an Account row', async () => {
      const email = uniq('new');
      oauth.asGoogle('g-new-1', email.toUpperCase());
      const { location, session, res } = await signIn('google');
      expect(location).toBe('/dashboard');
      // The session cookie is set exactly as email login sets it.
      const line = setCookie(res, 'session_token')!;
      for (const attr of [/HttpOnly/i, /SameSite=Lax/i, /Path=\/(;|$)/i, /Max-Age=2592000/i])
        expect(line).toMatch(attr);
      expect(line).not.toMatch(/;\s*Secure/i);
      expect(setCookie(res, 'oauth_state_google')).toMatch(/^oauth_state_google=;/);

      const user = await sessionUser(session!);
      expect(user).toEqual({ id: expect.any(String), email, name: 'Grace G', role: 'USER' });
      const [row] = await t.db.query('SELECT password, credits, avatar FROM users WHERE id = $1', [
        user.id,
      ]);
      expect(row).toEqual({
        password: null,
        credits: 100,
        avatar: 'https://lh3.googleusercontent.com/a/x',
      });
      const ledger = await t.db.query(
        'SELECT type, amount FROM credit_transactions WHERE "userId" = $1',
        [user.id],
      );
      expect(ledger).toEqual([{ type: 'BONUS', amount: 100 }]);
      expect(await accounts(user.id)).toEqual([
        { provider: 'google', providerAccountId: 'g-new-1' },
      ]);

      // The code was exchanged with the client secret and the same redirect_uri.
      const [userinfo] = oauth.calls('google', 'user');
      expect(userinfo.headers.authorization).toMatch(/^Bearer ya29\./);
      expect(userinfo.url).not.toContain('access_token');
      const [exchange] = oauth.calls('google', 'token');
      expect(exchange.form).toMatchObject({
        grant_type: 'authorization_code',
        client_id: OAUTH_CLIENTS.google.id,
        client_secret: OAUTH_CLIENTS.google.secret,
        redirect_uri: 'http://localhost:3000/api/auth/callback/google',
      });
    });

    it('a returning user is found by Account (same id, even after an email change), with no second bonus', async () => {
      oauth.asGoogle('g-back-1', uniq('back'));
      const first = await sessionUser((await signIn('google')).session!);
      oauth.asGoogle('g-back-1', uniq('renamed'));
      const again = await sessionUser((await signIn('google')).session!);
      expect(again.id).toBe(first.id);
      expect(again.email).toBe(first.email);
      expect(await ledgerOf(t, first.id)).toEqual({ credits: 100, ledgerSum: 100, entries: 1 });
      expect(await accounts(first.id)).toHaveLength(1);
    });

    it('a first GitHub login uses the primary verified address from the emails API', async () => {
      const email = uniq('gh');
      oauth.asGitHub(4242, email);
      const { location, session } = await signIn('github');
      expect(location).toBe('/dashboard');
      const user = await sessionUser(session!);
      expect(user).toMatchObject({ email, name: 'dev4242', role: 'USER' });
      expect(await accounts(user.id)).toEqual([{ provider: 'github', providerAccountId: '4242' }]);
      expect(await ledgerOf(t, user.id)).toEqual({ credits: 100, ledgerSum: 100, entries: 1 });
      const [userCall] = oauth.calls('github', 'user');
      expect(userCall.headers.authorization).toMatch(/^Bearer gho_/);
      expect(userCall.headers['user-agent']).toBeTruthy();
      expect(oauth.calls('github', 'emails')).toHaveLength(1);
    });

    it.each<[Provider, (email: string) => void]>([
      ['google', (email) => oauth.asGoogle('g-link-1', email)],
      ['github', (email) => oauth.asGitHub(5151, email)],
    ])(
      'links a %s login with a verified email to the existing password account',
      async (provider, as) => {
        const owner = await newUser(t, { email: uniq(`link-${provider}`) });
        as(owner.user.email);
        const { location, session } = await signIn(provider);
        expect(location).toBe('/dashboard');
        expect((await sessionUser(session!)).id).toBe(owner.user.id);
        expect(await accounts(owner.user.id)).toEqual([
          { provider, providerAccountId: expect.any(String) },
        ]);
        expect((await ledgerOf(t, owner.user.id)).entries).toBe(1);
        await t.http
          .post('/api/auth/login')
          .send({ email: owner.user.email, password: PASSWORD })
          .expect(200);
      },
    );

    it.each<[Provider, (email: string) => void]>([
      ['google', (email) => oauth.asGoogle('g-unverified-1', email, false)],
      ['github', (email) => oauth.asGitHub(6161, email, false)],
    ])(
      'refuses to link an unverified %s email: OAuthAccountNotLinked, no Account row, no session',
      async (provider, as) => {
        const owner = await newUser(t, { email: uniq(`victim-${provider}`) });
        as(owner.user.email);
        const { location, session } = await signIn(provider);
        expect(location).toBe('/auth/signin?error=OAuthAccountNotLinked');
        expect(session).toBeUndefined();
        expect(await accounts(owner.user.id)).toEqual([]);
      },
    );

    it('refuses to create an account from an unverified email: OAuthCreateAccount, no user', async () => {
      const email = uniq('nobody');
      oauth.asGoogle('g-unverified-new', email, false);
      const { location, session } = await signIn('google');
      expect(location).toBe('/auth/signin?error=OAuthCreateAccount');
      expect(session).toBeUndefined();
      expect(await t.app.get(UsersService).findByEmail(email)).toBeNull();
    });

    it('the credentials method keeps refusing a social-only account (it has no password)', async () => {
      const email = uniq('social-only');
      oauth.asGoogle('g-social-only', email);
      await signIn('google');
      const res = await t.http
        .post('/api/auth/login')
        .send({ email, password: PASSWORD })
        .expect(401);
      expect(res.body).toEqual({ error: expect.any(String), code: 'INVALID_CREDENTIALS' });
    });

    it('gives role ADMIN to an ADMIN_EMAILS address, at creation and at later logins', async () => {
      oauth.asGoogle('g-boss', 'Boss@Example.com');
      const { session } = await signIn('google');
      const boss = await sessionUser(session!);
      expect(boss.role).toBe('ADMIN');
      expect((jwt.decode(session!.split('=')[1]) as jwt.JwtPayload).role).toBe('ADMIN');
      await t.db.query(`UPDATE users SET role = 'USER' WHERE id = $1`, [boss.id]);
      expect((await sessionUser((await signIn('google')).session!)).role).toBe('ADMIN');
    });
  });

  describe('state, provider errors and callbackUrl', () => {
    beforeEach(() => {
      oauth.asGoogle('g-state', 'state-user@example.com');
      oauth.asGitHub(7171, 'state-user-gh@example.com');
    });

    it.each<[string, DanceOptions]>([
      ['a wrong state', { tamper: (b) => b.searchParams.set('state', 'x'.repeat(43)) }],
      ['a missing state', { tamper: (b) => b.searchParams.delete('state') }],
      ['no state cookie', { cookie: null }],
      ['a forged state cookie', { cookie: 'oauth_state_google=eyJwIjoiZ29vZ2xlIn0.c2ln' }],
      ['a missing code', { tamper: (b) => b.searchParams.delete('code') }],
    ])('%s → /auth/signin?error=OAuthCallback, without exchanging the code', async (_l, opts) => {
      const { location, session } = await signIn('google', opts);
      expect(location).toBe('/auth/signin?error=OAuthCallback');
      expect(session).toBeUndefined();
      expect(oauth.calls('google', 'token')).toHaveLength(0);
    });

    it('refuses a code and state started in another browser (login CSRF)', async () => {
      const victim = await t.http.get('/api/auth/signin/google').expect(302);
      const victimCookie = pair(setCookie(victim, 'oauth_state_google'));
      const { location } = await signIn('google', { cookie: victimCookie });
      expect(location).toBe('/auth/signin?error=OAuthCallback');
    });

    it('a code serves once: replaying the callback fails at the token endpoint', async () => {
      let replay = '';
      const first = await signIn('google', { tamper: (b) => (replay = b.pathname + b.search) });
      expect(first.location).toBe('/dashboard');
      const start = await t.http.get('/api/auth/signin/google').expect(302);
      const state = new URL(start.headers.location).searchParams.get('state')!;
      const stale = replay.replace(/state=[^&]+/, `state=${state}`);
      const res = await t.http
        .get(stale)
        .set('Cookie', pair(setCookie(start, 'oauth_state_google')))
        .expect(302);
      expect(res.headers.location).toBe('/auth/signin?error=OAuthCallback');
    });

    it.each([
      ['access_denied', '/auth/signin?error=access_denied'],
      ['<script>', '/auth/signin?error=OAuthCallback'],
    ])('passes a provider error %s on to the sign-in page', async (error, expected) => {
      oauth.deny = error;
      const { location, session } = await signIn('google');
      expect(location).toBe(expected);
      expect(session).toBeUndefined();
      expect(oauth.calls('google', 'token')).toHaveLength(0);
    });

    // safeCallbackUrl's unit test covers many more shapes.
    it.each([
      'https://evil.example.com/steal',
      '//evil.example.com/x',
      'http://localhost:3000@evil.example.com/',
    ])('ignores the disallowed callbackUrl %s and lands on /dashboard', async (callbackUrl) => {
      const { location, session } = await signIn('google', { callbackUrl });
      expect(location).toBe('/dashboard');
      expect(session).toBeDefined();
    });

    it.each([
      [
        'http://localhost:3000/dashboard/settings?tab=2',
        'http://localhost:3000/dashboard/settings?tab=2',
      ],
      ['/dashboard/settings', '/dashboard/settings'],
      ['http://app.test:5173/chat/1', 'http://app.test:5173/chat/1'],
    ])('follows the allowed callbackUrl %s', async (callbackUrl, expected) => {
      const { location, session } = await signIn('github', { callbackUrl });
      expect(location).toBe(expected);
      expect(session).toBeDefined();
    });
  });
});

describe('Social login: unconfigured providers', () => {
  const oauth = new OAuthTestServer();
  let t: TestApp;
  beforeAll(async () => {
    await oauth.start();
    // GitHub's endpoints are set, but without its id and secret it is not offered.
    t = await createTestApp({
      ...oauth.env(),
      GITHUB_CLIENT_ID: undefined,
      GITHUB_CLIENT_SECRET: undefined,
    });
  });
  afterAll(async () => {
    await t.close();
    await oauth.stop();
  });

  it('leaves GitHub out of /api/auth/providers and answers 404 on its routes', async () => {
    const res = await t.http.get('/api/auth/providers').expect(200);
    expect(Object.keys(res.body).sort()).toEqual(['credentials', 'google']);
    for (const path of ['/api/auth/signin/github', '/api/auth/callback/github?code=x&state=y']) {
      const miss = await t.http.get(path).expect(404);
      expect(miss.body).toEqual({ error: expect.any(String), code: 'NOT_FOUND' });
    }
    await t.http.get('/api/auth/signin/google').expect(302);
  });

  it('refuses to boot with a client id but no secret (or the reverse)', () => {
    expect(() => buildConfig({ GITHUB_CLIENT_ID: 'id-only' })).toThrow(/GITHUB_CLIENT_SECRET/);
    expect(() => buildConfig({ GOOGLE_CLIENT_SECRET: 'secret-only' })).toThrow(/GOOGLE_CLIENT_ID/);
    expect(buildConfig({}).oauth.google.tokenUrl).toBe('https://oauth2.googleapis.com/token');
  });
});
