import { SecretBox } from '../../../src/common/crypto/secret-box';
import { newUser, PASSWORD, type TestUser } from '../../support/factories';
import { createTestApp, TEST_ENCRYPTION_KEY, type TestApp } from '../../support/test-app';
import {
  bearer,
  challenge,
  enrol,
  sessionCookieOf,
  SetClock,
  totp,
  type Enrolled,
} from '../../support/two-factor';

const INVALID_CODE = { error: expect.any(String), code: 'TWO_FACTOR_CODE_INVALID' };
const sidOf = (token: string): string =>
  JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString()).sid;

describe('Two-factor login with TOTP and recovery codes', () => {
  const clock = new SetClock();
  let t: TestApp;
  let hour = 0;
  const verify = (body: object) => t.http.post('/api/auth/2fa/verify').send(body);

  beforeAll(async () => {
    t = await createTestApp({ TRUST_PROXY: 'true', TWO_FACTOR_MAX_FAILURES: '3' }, { clock });
  });
  afterAll(() => t.close());
  // Every test starts an hour later: failure windows and used steps of others are long gone.
  beforeEach(() => clock.startAt(++hour));

  describe('enrolment', () => {
    it('setup answers the secret, its otpauth URI and a PNG QR code, stored encrypted and pending', async () => {
      const u = await newUser(t);
      const res = await t.http.post('/api/auth/2fa/setup').set(u.auth).expect(200);
      const { secret, otpauthUrl, qrCodeDataUrl } = res.body;
      expect(secret).toMatch(/^[A-Z2-7]{32}$/);
      const url = new URL(otpauthUrl);
      expect(url.protocol + url.host).toBe('otpauth:totp');
      expect(decodeURIComponent(url.pathname)).toBe(`/AI Chat:${u.user.email}`);
      expect(Object.fromEntries(url.searchParams)).toMatchObject({
        secret,
        issuer: 'AI Chat',
        algorithm: 'SHA1',
        digits: '6',
        period: '30',
      });
      expect(qrCodeDataUrl).toMatch(/^data:image\/png;base64,/);
      expect(Buffer.from(qrCodeDataUrl.split(',')[1], 'base64').subarray(1, 4).toString()).toBe(
        'PNG',
      );

      const [row] = await t.db.query('SELECT * FROM two_factor WHERE "userId" = $1', [u.user.id]);
      expect(row.enabledAt).toBeNull();
      expect(row.secret).not.toContain(secret);
      expect(row.secret).toMatch(/^v1\./);
      // Only the key opens it, and only for this user.
      const box = new SecretBox(TEST_ENCRYPTION_KEY);
      expect(box.open(row.secret, u.user.id)).toBe(secret);
      expect(() => box.open(row.secret, 'another-user')).toThrow();
      await t.http
        .get('/api/auth/2fa')
        .set(u.auth)
        .expect(200, { enabled: false, recoveryCodesLeft: 0 });
    });

    it('setup again replaces the pending secret; enable confirms it with 10 recovery codes, stored hashed', async () => {
      const u = await newUser(t);
      await t.http.post('/api/auth/2fa/enable').set(u.auth).send({ code: '123456' }).expect(409);
      const first = (await t.http.post('/api/auth/2fa/setup').set(u.auth).expect(200)).body.secret;
      const second = (await t.http.post('/api/auth/2fa/setup').set(u.auth).expect(200)).body.secret;
      expect(second).not.toBe(first);
      const stale = await t.http
        .post('/api/auth/2fa/enable')
        .set(u.auth)
        .send({ code: totp(first, clock.now()) })
        .expect(401);
      expect(stale.body).toEqual(INVALID_CODE);

      const res = await t.http
        .post('/api/auth/2fa/enable')
        .set(u.auth)
        .send({ code: totp(second, clock.now()) })
        .expect(200);
      expect(res.body).toEqual({
        recoveryCodes: expect.any(Array),
        accessToken: expect.any(String),
      });
      const codes: string[] = res.body.recoveryCodes;
      expect(codes).toHaveLength(10);
      expect(new Set(codes).size).toBe(10);
      for (const c of codes) expect(c).toMatch(/^[0-9a-z]{4}-[0-9a-z]{4}-[0-9a-z]{4}$/);
      const stored = await t.db.query('SELECT "codeHash" FROM recovery_codes WHERE "userId" = $1', [
        u.user.id,
      ]);
      expect(stored).toHaveLength(10);
      const hashes = stored.map((r: { codeHash: string }) => r.codeHash).join();
      for (const c of codes) expect(hashes).not.toContain(c.replace(/-/g, ''));

      const fresh = bearer(res.body.accessToken);
      await t.http
        .get('/api/auth/2fa')
        .set(fresh)
        .expect(200, { enabled: true, recoveryCodesLeft: 10 });
      const again = await t.http.post('/api/auth/2fa/setup').set(fresh).expect(409);
      expect(again.body.code).toBe('TWO_FACTOR_ALREADY_ENABLED');
      await t.http.post('/api/auth/2fa/enable').set(fresh).send({ code: '123456' }).expect(409);
    });

    it('enabling ends the other sessions and keeps the one that enabled it, with a fresh token', async () => {
      const u = await newUser(t);
      const other = await t.http
        .post('/api/auth/login')
        .send({ email: u.user.email, password: PASSWORD })
        .expect(200);
      const setup = await t.http.post('/api/auth/2fa/setup').set(u.auth).expect(200);
      const res = await t.http
        .post('/api/auth/2fa/enable')
        .set(u.auth)
        .send({ code: totp(setup.body.secret, clock.now()) })
        .expect(200);
      expect(sessionCookieOf(res)).toBe(`session_token=${res.body.accessToken}`);
      await t.http.get('/api/protected').set(bearer(other.body.accessToken)).expect(401);
      await t.http.get('/api/protected').set(u.auth).expect(401);
      await t.http.get('/api/protected').set(bearer(res.body.accessToken)).expect(200);
      await t.http.get('/api/protected').set('Cookie', sessionCookieOf(res)!).expect(200);
    });
  });

  describe('login with 2FA on', () => {
    let u: TestUser;
    let e: Enrolled;
    beforeEach(async () => {
      u = await newUser(t);
      e = await enrol(t, clock, u.token);
    });

    it('asks for a code (no session), then a code of the current step signs in; never twice', async () => {
      const mfaToken = await challenge(t, u.user.email, PASSWORD);
      const code = totp(e.secret, clock.now());
      const res = await verify({ mfaToken, code }).expect(200);
      expect(res.body).toEqual({ user: expect.any(Object), accessToken: expect.any(String) });
      expect(res.body.user).toMatchObject({ id: u.user.id, email: u.user.email });
      expect(sessionCookieOf(res)).toBe(`session_token=${res.body.accessToken}`);
      await t.http.get('/api/protected').set(bearer(res.body.accessToken)).expect(200);

      // The same code again, even with a new challenge, is a replay.
      const replay = await verify({ mfaToken: await challenge(t, u.user.email, PASSWORD), code });
      expect(replay.status).toBe(401);
      expect(replay.body).toEqual(INVALID_CODE);
      expect(sessionCookieOf(replay)).toBeUndefined();
    });

    it('accepts codes one step off (clock drift) and refuses two steps off', async () => {
      const mfaToken = await challenge(t, u.user.email, PASSWORD);
      await verify({ mfaToken, code: totp(e.secret, clock.now(), +1) }).expect(200);
      clock.tick(90); // now at step +3: the code of step +2 is one behind
      const next = await challenge(t, u.user.email, PASSWORD);
      await verify({ mfaToken: next, code: totp(e.secret, clock.now(), -1) }).expect(200);
      clock.tick(300);
      for (const steps of [-2, +2]) {
        const res = await verify({
          mfaToken: await challenge(t, u.user.email, PASSWORD),
          code: totp(e.secret, clock.now(), steps),
        });
        expect({ steps, status: res.status }).toEqual({ steps, status: 401 });
      }
    });

    it('a recovery code signs in once, typed in any case and spacing', async () => {
      const [code] = e.recoveryCodes;
      const mfaToken = await challenge(t, u.user.email, PASSWORD);
      const typed = ` ${code.toUpperCase().replace(/-/g, ' ')} `;
      const res = await verify({ mfaToken, recoveryCode: typed }).expect(200);
      await t.http
        .get('/api/auth/2fa')
        .set(bearer(res.body.accessToken))
        .expect(200, { enabled: true, recoveryCodesLeft: 9 });
      const fresh = await challenge(t, u.user.email, PASSWORD);
      const again = await verify({ mfaToken: fresh, recoveryCode: code }).expect(401);
      expect(again.body).toEqual(INVALID_CODE);
    });

    it('an mfaToken serves once: a second verify is 401 MFA_TOKEN_INVALID, even with the next valid code', async () => {
      const mfaToken = await challenge(t, u.user.email, PASSWORD);
      // A wrong code does not use the token up.
      const wrong = await verify({ mfaToken, code: '000000' }).expect(401);
      expect(wrong.body).toEqual(INVALID_CODE);
      await verify({ mfaToken, code: totp(e.secret, clock.now()) }).expect(200);
      for (const proof of [
        { code: totp(e.secret, clock.now(), +1) },
        { code: totp(e.secret, clock.now()) },
        { recoveryCode: e.recoveryCodes[0] },
      ]) {
        const replay = await verify({ mfaToken, ...proof }).expect(401);
        expect(replay.body).toEqual({ error: expect.any(String), code: 'MFA_TOKEN_INVALID' });
        expect(sessionCookieOf(replay)).toBeUndefined();
      }
      // Neither the next code nor the recovery code was spent by the refused replays.
      const next = await challenge(t, u.user.email, PASSWORD);
      await verify({ mfaToken: next, recoveryCode: e.recoveryCodes[0] }).expect(200);
    });

    it('two verifies racing with one mfaToken and two valid codes: exactly one session', async () => {
      const mfaToken = await challenge(t, u.user.email, PASSWORD);
      const answers = await Promise.all(
        [0, +1].map((steps) => verify({ mfaToken, code: totp(e.secret, clock.now(), steps) })),
      );
      expect(answers.map((r) => r.status).sort()).toEqual([200, 401]);
      // The loser is refused either way, by which check it reaches first: when the later code
      // (+1) wins, the earlier one is already behind the last used time step (a code never
      // serves after a later one), else the token is used up. Neither opens a second session.
      expect(['MFA_TOKEN_INVALID', 'TWO_FACTOR_CODE_INVALID']).toContain(
        answers.find((r) => r.status === 401)!.body.code,
      );
      const [{ n }] = await t.db.query(
        'SELECT COUNT(*)::int AS n FROM sessions WHERE "userId" = $1 AND id <> ALL($2::uuid[])',
        [u.user.id, [sidOf(u.token), sidOf(e.token)]],
      );
      // Besides the factory's and the enrolment's sessions: the one sign-in.
      expect(n).toBe(1);
    });

    it('refuses a bad request: no code, both kinds, a wrong shape', async () => {
      const mfaToken = await challenge(t, u.user.email, PASSWORD);
      for (const body of [
        { mfaToken },
        { mfaToken, code: '123456', recoveryCode: e.recoveryCodes[0] },
        { mfaToken, code: '12345a' },
        { code: '123456' },
      ]) {
        const res = await verify(body).expect(400);
        expect(res.body.code).toBe('VALIDATION_FAILED');
      }
    });

    it('the mfaToken expires after 5 minutes, and a session token is no mfaToken', async () => {
      const mfaToken = await challenge(t, u.user.email, PASSWORD);
      clock.tick(301);
      const res = await verify({ mfaToken, code: totp(e.secret, clock.now()) }).expect(401);
      expect(res.body).toEqual({ error: expect.any(String), code: 'MFA_TOKEN_INVALID' });
      const session = await verify({ mfaToken: e.token, code: totp(e.secret, clock.now()) });
      expect(session.status).toBe(401);
      expect(session.body.code).toBe('MFA_TOKEN_INVALID');
    });

    it('the mfaToken is no session on any route: every route answers as without one', async () => {
      const mfaToken = await challenge(t, u.user.email, PASSWORD);
      const doc = (await t.http.get('/api/docs-json').expect(200)).body;
      const id = '00000000-0000-4000-8000-000000000000';
      let checked = 0;
      for (const [template, ops] of Object.entries<Record<string, unknown>>(doc.paths)) {
        const path = template.replace(/\{[^}]+\}/g, id);
        for (const method of Object.keys(ops)) {
          if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
          const send = (auth?: Record<string, string>) => {
            const req = (t.http as unknown as Record<string, (p: string) => any>)[method](path);
            return auth ? req.set(auth) : req;
          };
          const anonymous = await send();
          for (const auth of [bearer(mfaToken), { Cookie: `session_token=${mfaToken}` }]) {
            const res = await send(auth);
            expect({ route: `${method} ${template}`, status: res.status }).toEqual({
              route: `${method} ${template}`,
              status: anonymous.status,
            });
          }
          if (anonymous.status === 401) checked++;
        }
      }
      expect(checked).toBeGreaterThan(20);
      expect((await t.http.get('/api/auth/session').set(bearer(mfaToken))).body).toEqual({});
    });
  });

  describe('brute force (TWO_FACTOR_MAX_FAILURES=3)', () => {
    it('429 after 3 failures of one user, a correct code included, until the window passes', async () => {
      const u = await newUser(t);
      const e = await enrol(t, clock, u.token);
      const mfaToken = await challenge(t, u.user.email, PASSWORD);
      const ips = ['198.51.100.1', '198.51.100.2', '198.51.100.3', '198.51.100.4'];
      for (const ip of ips.slice(0, 3))
        await verify({ mfaToken, code: '000000' }).set('X-Forwarded-For', ip).expect(401);
      const good = { mfaToken, code: totp(e.secret, clock.now()) };
      const locked = await verify(good).set('X-Forwarded-For', ips[3]);
      expect(locked.status).toBe(429);
      expect(locked.body).toEqual({ error: expect.any(String), code: 'RATE_LIMITED' });
      expect(Number(locked.headers['retry-after'])).toBeGreaterThan(800);
      expect(sessionCookieOf(locked)).toBeUndefined();
      // Recovery codes are locked out too.
      await verify({ mfaToken, recoveryCode: e.recoveryCodes[0] }).expect(429);

      clock.tick(900);
      const late = await challenge(t, u.user.email, PASSWORD);
      await verify({ mfaToken: late, code: totp(e.secret, clock.now()) }).expect(200);
    });

    it('counts per IP too: failures of two users from one address lock that address', async () => {
      const [a, b] = [await newUser(t), await newUser(t)];
      const [ea, eb] = [await enrol(t, clock, a.token), await enrol(t, clock, b.token)];
      const ip = '203.0.113.77';
      const ta = await challenge(t, a.user.email, PASSWORD);
      const tb = await challenge(t, b.user.email, PASSWORD);
      await verify({ mfaToken: ta, code: '000000' }).set('X-Forwarded-For', ip).expect(401);
      await verify({ mfaToken: ta, code: '000001' }).set('X-Forwarded-For', ip).expect(401);
      await verify({ mfaToken: tb, code: '000002' }).set('X-Forwarded-For', ip).expect(401);
      const code = totp(eb.secret, clock.now());
      await verify({ mfaToken: tb, code }).set('X-Forwarded-For', ip).expect(429);
      await verify({ mfaToken: tb, code }).set('X-Forwarded-For', '203.0.113.78').expect(200);
      // a has 2 failures of 3: another address still lets a in.
      await verify({ mfaToken: ta, code: totp(ea.secret, clock.now()) })
        .set('X-Forwarded-For', '203.0.113.79')
        .expect(200);
    });
  });
});
