import { createHash } from 'node:crypto';
import { SmtpTestServer } from '../../servers/smtp-server';
import {
  followLink,
  signUp,
  signUpVerified,
  uniqueEmail,
  verificationMail,
} from '../../support/accounts';
import { ledgerOf, newUser, PASSWORD } from '../../support/factories';
import { createTestApp, type TestApp } from '../../support/test-app';

describe('Email verification (real SMTP server)', () => {
  const smtp = new SmtpTestServer();
  let t: TestApp;

  const me = async (auth: { Authorization: string }) =>
    (await t.http.get('/api/auth/session').set(auth).expect(200)).body.user;
  const login = (email: string, password = PASSWORD) =>
    t.http.post('/api/auth/login').send({ email, password });
  const signupBonuses = async () =>
    (
      await t.db.query(
        `SELECT count(*)::int AS n FROM credit_transactions WHERE reference LIKE 'signup:%'`,
      )
    )[0].n as number;

  beforeAll(async () => {
    await smtp.start();
    t = await createTestApp({
      ...smtp.env(),
      ADMIN_EMAILS: 'boss@example.com',
      REFERRAL_SIGNUP_BONUS: '25',
      JOBS_POLL_INTERVAL_SECONDS: '0.5',
    });
  });
  afterAll(async () => {
    await t.close();
    await smtp.stop();
  });

  it('sign-up mails a link (text and HTML); following it verifies once and grants the bonus once', async () => {
    const u = await signUp(t);
    expect(u.user).toMatchObject({ emailVerified: false, credits: 0, role: 'USER' });
    expect(await ledgerOf(t, u.id)).toEqual({ credits: 0, ledgerSum: 0, entries: 0 });

    const mail = await verificationMail(smtp, u.email);
    expect(mail.from).toBe('"AI Chat" <no-reply@chat.test>');
    expect(mail.link).toMatch(/^http:\/\/localhost:3000\/en\/auth\/verify-email\?token=[\w-]{43}$/);
    expect(mail.html).toContain(`href="${mail.link}"`);
    expect(mail.lang).toBe('en');
    // Only the hash of the token is stored.
    const [row] = await t.db.query(
      `SELECT encode("tokenHash", 'hex') AS hash, EXTRACT(EPOCH FROM "expiresAt" - "createdAt")::int AS life
       FROM account_tokens WHERE "userId" = $1`,
      [u.id],
    );
    expect(row.hash).toBe(createHash('sha256').update(mail.token!).digest('hex'));
    expect(JSON.stringify(await t.db.query('SELECT * FROM account_tokens'))).not.toContain(
      mail.token!,
    );
    expect(row.life).toBe(24 * 3600);

    const res = await followLink(t, mail, '/api/auth/verify-email').expect(200);
    expect(res.body.user).toMatchObject({ id: u.id, emailVerified: true, credits: 100 });
    const again = await followLink(t, mail, '/api/auth/verify-email').expect(400);
    expect(again.body).toEqual({ error: expect.any(String), code: 'INVALID_TOKEN' });
    expect(await ledgerOf(t, u.id)).toEqual({ credits: 100, ledgerSum: 100, entries: 1 });
    const profile = await t.http.put('/api/user/profile').set(u.auth).send({}).expect(200);
    expect(profile.body.user.emailVerified).toBe(true);
  });

  it('unknown, expired and other-purpose tokens get the same INVALID_TOKEN', async () => {
    const u = await signUp(t);
    const mail = await verificationMail(smtp, u.email);
    const unknown = await t.http
      .post('/api/auth/verify-email')
      .send({ token: 'A'.repeat(43) })
      .expect(400);
    await t.db.query(
      `UPDATE account_tokens SET "expiresAt" = now() - interval '1 second' WHERE "userId" = $1`,
      [u.id],
    );
    const expired = await followLink(t, mail, '/api/auth/verify-email').expect(400);
    const wrongRoute = await t.http
      .post('/api/auth/password/reset')
      .send({ token: mail.token, password: 'another good password' })
      .expect(400);
    for (const r of [unknown, expired, wrongRoute]) expect(r.body.code).toBe('INVALID_TOKEN');
    expect(expired.body.error).toBe(unknown.body.error);
    expect((await me(u.auth)).id).toBe(u.id);
    expect(await ledgerOf(t, u.id)).toEqual({ credits: 0, ledgerSum: 0, entries: 0 });
  });

  it('the mail is in Chinese for a zh request', async () => {
    const u = await signUp(t, uniqueEmail(), { headers: { 'Accept-Language': 'zh-CN' } });
    const mail = await verificationMail(smtp, u.email);
    expect(mail.subject).toBe('请验证您的邮箱地址');
    expect(mail.lang).toBe('zh');
    expect(mail.link).toMatch(/\/zh\/auth\/verify-email\?token=/);
    expect(mail.text).toContain('24 小时');
  });

  it('an ADMIN_EMAILS address is ADMIN only once verified, also across logins', async () => {
    const boss = await signUp(t, 'boss@example.com');
    expect(boss.user.role).toBe('USER');
    const first = await login('boss@example.com').expect(200);
    expect(first.body.user.role).toBe('USER');
    await t.http.get('/api/users').set(boss.auth).expect(403);

    await followLink(t, await verificationMail(smtp, boss.email), '/api/auth/verify-email')
      .expect(200)
      .expect((r) => expect(r.body.user.role).toBe('ADMIN'));
    const after = await login('boss@example.com').expect(200);
    expect(after.body.user.role).toBe('ADMIN');
    await t.http
      .get('/api/users')
      .set({ Authorization: `Bearer ${after.body.accessToken}` })
      .expect(200);
  });

  it('100 unverified sign-ups are granted nothing', async () => {
    const before = await signupBonuses();
    const emails = Array.from({ length: 100 }, () => uniqueEmail('farm'));
    for (let i = 0; i < emails.length; i += 20)
      await Promise.all(emails.slice(i, i + 20).map((e) => signUp(t, e)));
    const [{ n, credits }] = await t.db.query(
      `SELECT count(*)::int AS n, COALESCE(sum(u.credits), 0)::int AS credits FROM users u
       WHERE u.email LIKE 'farm-%'`,
    );
    expect({ n, credits }).toEqual({ n: 100, credits: 0 });
    const [{ entries }] = await t.db.query(
      `SELECT count(*)::int AS entries FROM credit_transactions ct JOIN users u ON u.id = ct."userId"
       WHERE u.email LIKE 'farm-%'`,
    );
    expect(entries).toBe(0);
    expect(await signupBonuses()).toBe(before);
    // Each sign-up hashes a password at the production bcrypt cost: minutes on a busy 2-core box.
  }, 300_000);

  it('resend mails a new link and the earlier one stops working; a verified user gets none', async () => {
    const u = await signUp(t);
    const first = await verificationMail(smtp, u.email);
    await t.http.post('/api/auth/verify-email/resend').set(u.auth).expect(202, { accepted: true });
    const second = await verificationMail(smtp, u.email, 2);
    expect(second.token).not.toBe(first.token);
    await followLink(t, first, '/api/auth/verify-email').expect(400);
    await followLink(t, second, '/api/auth/verify-email').expect(200);

    await t.http.post('/api/auth/verify-email/resend').set(u.auth).expect(202);
    await t.http.post('/api/auth/verify-email/resend').expect(401);
    // A later mail to someone else arrives; none came for the verified user in between.
    const other = await signUp(t);
    await verificationMail(smtp, other.email);
    expect(smtp.inbox(u.email)).toHaveLength(2);
  });

  it('a referred user earns the referral bonus at verification, not at sign-up', async () => {
    const referrer = await newUser(t);
    const { code } = (await t.http.get('/api/referrals').set(referrer.auth).expect(200)).body;
    const friend = await signUp(t, uniqueEmail(), { referralCode: code });
    expect(await ledgerOf(t, friend.id)).toEqual({ credits: 0, ledgerSum: 0, entries: 0 });
    await followLink(
      t,
      await verificationMail(smtp, friend.email),
      '/api/auth/verify-email',
    ).expect(200);
    expect(await ledgerOf(t, friend.id)).toEqual({ credits: 125, ledgerSum: 125, entries: 2 });
  });

  it('password login works unverified by default', async () => {
    const u = await signUp(t);
    await login(u.email).expect(200);
  });
});

describe('REQUIRE_EMAIL_VERIFICATION=true', () => {
  const smtp = new SmtpTestServer();
  let t: TestApp;

  beforeAll(async () => {
    await smtp.start();
    t = await createTestApp({
      ...smtp.env(),
      REQUIRE_EMAIL_VERIFICATION: 'true',
      JOBS_POLL_INTERVAL_SECONDS: '0.5',
    });
  });
  afterAll(async () => {
    await t.close();
    await smtp.stop();
  });

  it('password login of an unverified address is 403 EMAIL_NOT_VERIFIED until the link is followed', async () => {
    const u = await signUp(t);
    const refused = await t.http
      .post('/api/auth/login')
      .send({ email: u.email, password: PASSWORD })
      .expect(403);
    expect(refused.body.code).toBe('EMAIL_NOT_VERIFIED');
    // A wrong password learns nothing about the address.
    const wrong = await t.http
      .post('/api/auth/login')
      .send({ email: u.email, password: 'not the password' })
      .expect(401);
    expect(wrong.body.code).toBe('INVALID_CREDENTIALS');

    await followLink(t, await verificationMail(smtp, u.email), '/api/auth/verify-email').expect(
      200,
    );
    await t.http.post('/api/auth/login').send({ email: u.email, password: PASSWORD }).expect(200);
  });

  it('a user who followed the link logs in', async () => {
    const u = await signUpVerified(t, smtp);
    await t.http.post('/api/auth/login').send({ email: u.email, password: PASSWORD }).expect(200);
  });
});
