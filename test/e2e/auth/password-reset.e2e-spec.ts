import { SmtpTestServer } from '../../servers/smtp-server';
import { signUp, signUpVerified, uniqueEmail } from '../../support/accounts';
import { PASSWORD } from '../../support/factories';
import { createTestApp, type TestApp } from '../../support/test-app';
import { challenge, enrol, SetClock } from '../../support/two-factor';
import { waitFor } from '../../support/wait';

const NEW_PASSWORD = 'staple battery horse correct';
const RESET_SUBJECT = /Reset your password|重置您的密码/;

describe('Password reset by mail (real SMTP server)', () => {
  const smtp = new SmtpTestServer();
  const clock = new SetClock();
  let t: TestApp;

  const forgot = (email: string) =>
    t.http.post('/api/auth/password/forgot').send({ email }).expect(202);
  const reset = (token: string | undefined, password = NEW_PASSWORD) =>
    t.http.post('/api/auth/password/reset').send({ token, password });
  const login = (email: string, password: string) =>
    t.http.post('/api/auth/login').send({ email, password });
  /** The state of the queued lookup for `email` (the job the request queued). */
  const lookupState = async (email: string): Promise<string | undefined> =>
    (
      await t.db.query(
        `SELECT state FROM pgboss.job WHERE name = 'password-reset-request' AND data->>'email' = $1`,
        [email],
      )
    )[0]?.state;

  beforeAll(async () => {
    await smtp.start();
    t = await createTestApp({ ...smtp.env(), JOBS_POLL_INTERVAL_SECONDS: '0.5' }, { clock });
  });
  afterAll(async () => {
    await t.close();
    await smtp.stop();
  });

  it('the link arrives, works once, ends earlier sessions and sends a notice', async () => {
    const u = await signUp(t);
    await t.http.get('/api/protected').set(u.auth).expect(200);

    const answer = await forgot(u.email);
    expect(answer.body).toEqual({ accepted: true });
    const mail = await smtp.waitForMail(u.email, { subject: RESET_SUBJECT });
    expect(mail.link).toMatch(
      /^http:\/\/localhost:3000\/en\/auth\/reset-password\?token=[\w-]{43}$/,
    );
    expect(mail.html).toContain(`href="${mail.link}"`);
    expect(mail.text).toContain('1 hour');
    const [row] = await t.db.query(
      `SELECT EXTRACT(EPOCH FROM "expiresAt" - "createdAt")::int AS life FROM account_tokens
       WHERE "userId" = $1 AND purpose = 'reset_password'`,
      [u.id],
    );
    expect(row.life).toBe(3600);

    const done = await reset(mail.token).expect(200);
    expect(done.body).toEqual({ reset: true });
    await t.http.get('/api/protected').set(u.auth).expect(401);
    await login(u.email, PASSWORD).expect(401);
    await login(u.email, NEW_PASSWORD).expect(200);

    const again = await reset(mail.token, 'yet another good password').expect(400);
    expect(again.body.code).toBe('INVALID_TOKEN');
    await login(u.email, NEW_PASSWORD).expect(200);

    const notice = await smtp.waitForMail(u.email, { subject: /password was changed/ });
    expect(notice.text).toContain('signed out');
    expect(notice.html).toContain('<p>');
    // Following a mailed link proved the address.
    const [user] = await t.db.query('SELECT "emailVerifiedAt" FROM users WHERE id = $1', [u.id]);
    expect(user.emailVerifiedAt).not.toBeNull();
  });

  it('an unknown address gets the same 202, and nothing is mailed', async () => {
    const known = await signUp(t);
    const unknown = uniqueEmail('nobody');
    const a = await forgot(unknown);
    const b = await forgot(known.email);
    expect(a.body).toEqual(b.body);
    expect(Object.keys(a.headers).sort()).toEqual(Object.keys(b.headers).sort());
    await smtp.waitForMail(known.email, { subject: RESET_SUBJECT });
    expect(await waitFor(async () => (await lookupState(unknown)) === 'completed', 15_000)).toBe(
      true,
    );
    expect(smtp.inbox(unknown)).toEqual([]);
  });

  it('a weak password is refused with 400 and the link still works', async () => {
    const u = await signUp(t);
    await forgot(u.email);
    const mail = await smtp.waitForMail(u.email, { subject: RESET_SUBJECT });
    const weak = await reset(mail.token, 'short').expect(400);
    expect(weak.body.code).toBe('VALIDATION_FAILED');
    await login(u.email, PASSWORD).expect(200);
    await reset(mail.token).expect(200);
  });

  it('only the newest link works', async () => {
    const u = await signUp(t);
    await forgot(u.email);
    const first = await smtp.waitForMail(u.email, { subject: RESET_SUBJECT });
    await forgot(u.email);
    const second = await smtp.waitForMail(u.email, { subject: RESET_SUBJECT, n: 2 });
    await reset(first.token).expect(400);
    await reset(second.token).expect(200);
  });

  it('with two-factor on, the next login of a verified account still asks for the second factor', async () => {
    clock.startAt(1);
    const u = await signUpVerified(t, smtp, uniqueEmail('tfa'));
    await enrol(t, clock, u.token);
    await forgot(u.email);
    const mail = await smtp.waitForMail(u.email, { subject: RESET_SUBJECT });
    await reset(mail.token).expect(200);
    expect(await challenge(t, u.email, NEW_PASSWORD)).toEqual(expect.any(String));
  });

  it('asked with no language for an account that stored zh, the mail comes in zh', async () => {
    const u = await signUpVerified(t, smtp);
    await t.http.put('/api/user/preferences').set(u.auth).send({ locale: 'zh' }).expect(200);
    await forgot(u.email); // no Accept-Language, no locale: the request's language is en
    // The stored preference wins: the subject, the text and the link's page are Chinese. A wait
    // for the English subject would time out although the mail arrived.
    const mail = await smtp.waitForMail(u.email, { subject: RESET_SUBJECT });
    expect(mail.subject).toBe('重置您的密码');
    expect(mail.lang).toBe('zh');
    expect(mail.link).toMatch(/\/zh\/auth\/reset-password\?token=[\w-]{43}$/);
    await reset(mail.token).expect(200);
  });

  it('bad bodies are 400 and change nothing', async () => {
    for (const body of [{}, { email: 'not-an-email' }, { email: 42 }])
      await t.http.post('/api/auth/password/forgot').send(body).expect(400);
    for (const body of [
      { password: NEW_PASSWORD },
      { token: '', password: NEW_PASSWORD },
      { token: 'x' },
      { token: 'x'.repeat(43), password: NEW_PASSWORD, revokeKeys: 'yes' },
    ])
      await t.http.post('/api/auth/password/reset').send(body).expect(400);
  });
});
