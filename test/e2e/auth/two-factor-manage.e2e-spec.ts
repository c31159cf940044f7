import { Logger } from '@nestjs/common';
import { newUser, PASSWORD } from '../../support/factories';
import { oauthDance } from '../../support/oauth-browser';
import { createTestApp, type TestApp } from '../../support/test-app';
import {
  bearer,
  challenge,
  enrol,
  sessionCookieOf,
  SetClock,
  totp,
} from '../../support/two-factor';
import { OAuthTestServer } from '../../servers/oauth-server';

describe('Managing two-factor authentication and sessions', () => {
  const clock = new SetClock();
  const oauth = new OAuthTestServer();
  let t: TestApp;
  let hour = 0;
  const post = (path: string, token: string, body: object = {}) =>
    t.http.post(path).set(bearer(token)).send(body);

  beforeAll(async () => {
    await oauth.start();
    t = await createTestApp(oauth.env(), { clock });
  });
  afterAll(async () => {
    await t.close();
    await oauth.stop();
  });
  beforeEach(() => {
    clock.startAt(++hour);
    oauth.reset();
  });

  it('disable needs the password and a code, ends other sessions; then login has no second step', async () => {
    const u = await newUser(t);
    const e = await enrol(t, clock, u.token);
    const other = (
      await t.http
        .post('/api/auth/2fa/verify')
        .send({
          mfaToken: await challenge(t, u.user.email, PASSWORD),
          code: totp(e.secret, clock.now()),
        })
        .expect(200)
    ).body.accessToken;
    clock.tick();
    const code = totp(e.secret, clock.now());
    const noPassword = await post('/api/auth/2fa/disable', e.token, { code }).expect(401);
    expect(noPassword.body.code).toBe('INVALID_CREDENTIALS');
    await post('/api/auth/2fa/disable', e.token, { code: '000000', password: PASSWORD }).expect(
      401,
    );
    const res = await post('/api/auth/2fa/disable', e.token, { code, password: PASSWORD }).expect(
      200,
    );
    expect(res.body).toEqual({ accessToken: expect.any(String) });
    await t.http.get('/api/protected').set(bearer(other)).expect(401);
    await t.http.get('/api/protected').set(bearer(e.token)).expect(401);
    const fresh = bearer(res.body.accessToken);
    await t.http
      .get('/api/auth/2fa')
      .set(fresh)
      .expect(200, { enabled: false, recoveryCodesLeft: 0 });
    expect(
      await t.db.query('SELECT 1 FROM recovery_codes WHERE "userId" = $1', [u.user.id]),
    ).toEqual([]);
    const login = await t.http
      .post('/api/auth/login')
      .send({ email: u.user.email, password: PASSWORD })
      .expect(200);
    expect(login.body.accessToken).toEqual(expect.any(String));
    await post('/api/auth/2fa/disable', res.body.accessToken, { code }).expect(409);
  });

  it('new recovery codes need a code and make the old set stop working', async () => {
    const u = await newUser(t);
    const e = await enrol(t, clock, u.token);
    await post('/api/auth/2fa/recovery-codes', e.token, { code: '000000' }).expect(401);
    const res = await post('/api/auth/2fa/recovery-codes', e.token, {
      code: totp(e.secret, clock.now()),
    }).expect(200);
    expect(res.body.recoveryCodes).toHaveLength(10);
    const mfaToken = await challenge(t, u.user.email, PASSWORD);
    const verify = (recoveryCode: string) =>
      t.http.post('/api/auth/2fa/verify').send({ mfaToken, recoveryCode });
    await verify(e.recoveryCodes[0]).expect(401);
    await verify(res.body.recoveryCodes[0]).expect(200);
  });

  it("an admin turns a user's 2FA off (logged); the user's sessions end; others may not", async () => {
    const admin = await newUser(t, { role: 'ADMIN' });
    const u = await newUser(t);
    const e = await enrol(t, clock, u.token);
    const path = `/api/users/${u.user.id}/2fa`;
    await t.http.delete(path).set(bearer(e.token)).expect(403);
    const log = jest.spyOn(Logger.prototype, 'log');
    try {
      const res = await t.http.delete(path).set(admin.auth).expect(200);
      expect(res.body).toEqual({ success: true });
      expect(log).toHaveBeenCalledWith(expect.stringContaining(`of user ${u.user.id}`));
      expect(log).toHaveBeenCalledWith(expect.stringContaining(`Administrator ${admin.user.id}`));
    } finally {
      log.mockRestore();
    }
    await t.http.get('/api/protected').set(bearer(e.token)).expect(401);
    await t.http.get('/api/protected').set(admin.auth).expect(200);
    const again = await t.http.delete(path).set(admin.auth).expect(409);
    expect(again.body).toMatchObject({ success: false, code: 'TWO_FACTOR_NOT_ENABLED' });
    await t.http
      .delete('/api/users/00000000-0000-4000-8000-000000000000/2fa')
      .set(admin.auth)
      .expect(404);
    await t.http
      .post('/api/auth/login')
      .send({ email: u.user.email, password: PASSWORD })
      .expect(200)
      .expect((r) => expect(r.body.accessToken).toEqual(expect.any(String)));
  });

  it('changing the password ends the other sessions and pending logins, keeps this one', async () => {
    const u = await newUser(t);
    const e = await enrol(t, clock, u.token);
    const pending = await challenge(t, u.user.email, PASSWORD);
    const body = { currentPassword: 'wrong password', newPassword: 'a brand new password' };
    const wrong = await post('/api/auth/password', e.token, body).expect(401);
    expect(wrong.body.code).toBe('INVALID_CREDENTIALS');
    const res = await post('/api/auth/password', e.token, {
      ...body,
      currentPassword: PASSWORD,
    }).expect(200);
    expect(sessionCookieOf(res)).toBe(`session_token=${res.body.accessToken}`);
    await t.http.get('/api/protected').set(bearer(e.token)).expect(401);
    await t.http.get('/api/protected').set(bearer(res.body.accessToken)).expect(200);
    const stale = await t.http
      .post('/api/auth/2fa/verify')
      .send({ mfaToken: pending, code: totp(e.secret, clock.now()) })
      .expect(401);
    expect(stale.body.code).toBe('MFA_TOKEN_INVALID');
    await challenge(t, u.user.email, 'a brand new password');
  });

  describe('social login', () => {
    it('with 2FA on, the callback sets no session and redirects to /{locale}/auth/2fa, whose verify signs in', async () => {
      const email = `social-2fa-${hour}@example.com`;
      oauth.asGitHub(9000 + hour, email);
      const first = await oauthDance(t.http, oauth, 'github');
      const token = first.session!.split('=')[1];
      const e = await enrol(t, clock, token);

      const again = await oauthDance(t.http, oauth, 'github', {
        callbackUrl: '/dashboard/settings',
      });
      expect(again.session).toBeUndefined();
      const to = new URL(again.location, 'http://localhost:3000');
      expect(to.pathname).toBe('/en/auth/2fa');
      expect(to.searchParams.get('callbackUrl')).toBe('/dashboard/settings');
      const mfaToken = to.searchParams.get('token')!;
      await t.http.get('/api/protected').set(bearer(mfaToken)).expect(401);
      const res = await t.http
        .post('/api/auth/2fa/verify')
        .send({ mfaToken, code: totp(e.secret, clock.now()) })
        .expect(200);
      expect(res.body.user.email).toBe(email);
      await t.http.get('/api/auth/session').set('Cookie', sessionCookieOf(res)!).expect(200);

      // A social-only account turns 2FA off with a code alone.
      clock.tick();
      await post('/api/auth/2fa/disable', res.body.accessToken, {
        code: totp(e.secret, clock.now()),
      }).expect(200);
      expect((await oauthDance(t.http, oauth, 'github')).session).toBeDefined();
    });
  });
});
