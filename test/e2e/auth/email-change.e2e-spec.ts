import { AuthService } from '../../../src/auth/auth.service';
import { UsersService } from '../../../src/users/users.service';
import { SmtpTestServer } from '../../servers/smtp-server';
import { signUp, signUpVerified, uniqueEmail, verifyUser } from '../../support/accounts';
import { PASSWORD } from '../../support/factories';
import { createTestApp, type TestApp } from '../../support/test-app';
import { enrol, SetClock, totp } from '../../support/two-factor';

const CONFIRM_SUBJECT = /Confirm your new email/;
const NOTICE_SUBJECT = /about to change/;

describe('Email change (real SMTP server)', () => {
  const smtp = new SmtpTestServer();
  const clock = new SetClock();
  let t: TestApp;

  const change = (auth: Record<string, string>, body: object) =>
    t.http.post('/api/user/email').set(auth).send(body);
  const confirm = (token: string | undefined) =>
    t.http.post('/api/user/email/confirm').send({ token });
  const emailOf = async (id: string): Promise<string> =>
    (await t.db.query('SELECT email FROM users WHERE id = $1', [id]))[0].email;
  const login = (email: string) =>
    t.http.post('/api/auth/login').send({ email, password: PASSWORD });

  beforeAll(async () => {
    await smtp.start();
    t = await createTestApp(
      { ...smtp.env(), ADMIN_EMAILS: 'boss@example.com', EMAIL_CHANGE_PER_DAY: '3' },
      { clock },
    );
  });
  afterAll(async () => {
    await t.close();
    await smtp.stop();
  });

  it('mails a confirmation to the new address and a notice to the old; nothing changes before confirmation', async () => {
    const u = await signUpVerified(t, smtp);
    const next = uniqueEmail('moved');
    const res = await change(u.auth, { newEmail: next.toUpperCase(), password: PASSWORD }).expect(
      202,
    );
    expect(res.body).toEqual({ accepted: true });

    const confirmation = await smtp.waitForMail(next, { subject: CONFIRM_SUBJECT });
    expect(confirmation.link).toMatch(/\/en\/auth\/confirm-email\?token=[\w-]{43}$/);
    const notice = await smtp.waitForMail(u.email, { subject: NOTICE_SUBJECT });
    expect(notice.text).toContain(next);
    expect(notice.link).toBeUndefined();
    expect(smtp.inbox(u.email).some((m) => CONFIRM_SUBJECT.test(m.subject))).toBe(false);

    expect(await emailOf(u.id)).toBe(u.email);
    await login(u.email).expect(200);
    await login(next).expect(401);

    const done = await confirm(confirmation.token).expect(200);
    expect(done.body.user).toMatchObject({ id: u.id, email: next, emailVerified: true });
    expect(await emailOf(u.id)).toBe(next);
    await login(next).expect(200);
    await login(u.email).expect(401);
    const session = await t.http.get('/api/auth/session').set(u.auth).expect(200);
    expect(session.body.user.email).toBe(next);

    const again = await confirm(confirmation.token).expect(400);
    expect(again.body.code).toBe('INVALID_TOKEN');
    const [audit] = await t.db.query(
      `SELECT details FROM audit_events WHERE action = 'user.email.change' AND "targetId" = $1`,
      [u.id],
    );
    expect(audit.details).toEqual({ from: u.email, to: next });
  });

  it('a wrong or missing password is 401 and mails nothing', async () => {
    const u = await signUpVerified(t, smtp);
    const next = uniqueEmail('nope');
    for (const body of [{ newEmail: next, password: 'wrong password' }, { newEmail: next }]) {
      const res = await change(u.auth, body).expect(401);
      expect(res.body.code).toBe('INVALID_CREDENTIALS');
    }
    await change({}, { newEmail: next, password: PASSWORD }).expect(401);
    const [{ n }] = await t.db.query(
      `SELECT count(*)::int AS n FROM account_tokens WHERE "userId" = $1 AND purpose = 'change_email'`,
      [u.id],
    );
    expect(n).toBe(0);
  });

  it('a taken address is accepted at the request and refused with 409 only at confirmation', async () => {
    const u = await signUpVerified(t, smtp);
    const other = await signUp(t);
    await change(u.auth, { newEmail: other.email, password: PASSWORD }).expect(202);
    const confirmation = await smtp.waitForMail(other.email, { subject: CONFIRM_SUBJECT });
    const taken = await confirm(confirmation.token).expect(409);
    expect(taken.body.code).toBe('EMAIL_TAKEN');
    expect(await emailOf(u.id)).toBe(u.email);
    expect(await emailOf(other.id)).toBe(other.email);
  });

  it('an account without a password proves itself with a TOTP code', async () => {
    clock.startAt(1);
    const users = t.app.get(UsersService);
    const social = await users.create({ email: uniqueEmail('social'), name: 'S' });
    await verifyUser(t, social.id);
    const { accessToken } = (
      await t.http.post('/api/auth/login').send({ email: social.email, password: PASSWORD })
    ).body as { accessToken?: string };
    expect(accessToken).toBeUndefined(); // no password: it cannot log in with one
    const token = await issueFor(social.id);
    const next = uniqueEmail('social-moved');

    const off = await change({ Authorization: `Bearer ${token}` }, { newEmail: next }).expect(409);
    expect(off.body.code).toBe('TWO_FACTOR_NOT_ENABLED');

    const e = await enrol(t, clock, token);
    const auth = { Authorization: `Bearer ${e.token}` };
    const wrong = await change(auth, { newEmail: next, totpCode: '000000' }).expect(401);
    expect(wrong.body.code).toBe('TWO_FACTOR_CODE_INVALID');
    await change(auth, { newEmail: next, totpCode: totp(e.secret, clock.now()) }).expect(202);
    const confirmation = await smtp.waitForMail(next, { subject: CONFIRM_SUBJECT });
    await confirm(confirmation.token).expect(200);
    expect(await emailOf(social.id)).toBe(next);
  });

  it('bad bodies are 400 and change nothing', async () => {
    const u = await signUpVerified(t, smtp);
    for (const body of [
      {},
      { newEmail: 'not-an-email', password: PASSWORD },
      { newEmail: uniqueEmail(), totpCode: '12' },
      { newEmail: u.email, password: PASSWORD },
    ])
      await change(u.auth, body).expect(400);
    await t.http.post('/api/user/email/confirm').send({}).expect(400);
    expect(await emailOf(u.id)).toBe(u.email);
  });

  it('an unverified account cannot ask: 403 EMAIL_NOT_VERIFIED, and nothing is mailed', async () => {
    const u = await signUp(t);
    const next = uniqueEmail('unproven');
    const res = await change(u.auth, { newEmail: next, password: PASSWORD }).expect(403);
    expect(res.body.code).toBe('EMAIL_NOT_VERIFIED');
    const [{ n }] = await t.db.query(
      `SELECT count(*)::int AS n FROM account_tokens WHERE "userId" = $1 AND purpose = 'change_email'`,
      [u.id],
    );
    expect(n).toBe(0);
  });

  it('the mail to the unproven new address carries no display name; the notice to the proven one does', async () => {
    const u = await signUpVerified(t, smtp);
    const bait = 'Claim your prize at https://evil.example';
    await t.http.put('/api/user/profile').set(u.auth).send({ name: bait }).expect(200);
    const next = uniqueEmail('target');
    await change(u.auth, { newEmail: next, password: PASSWORD }).expect(202);
    const confirmation = await smtp.waitForMail(next, { subject: CONFIRM_SUBJECT });
    expect(confirmation.text).not.toContain('evil.example');
    expect(confirmation.html).not.toContain('evil.example');
    expect(confirmation.text).toMatch(/^Hello,/);
    const notice = await smtp.waitForMail(u.email, { subject: NOTICE_SUBJECT });
    expect(notice.text).toContain(bait);
  });

  it('at most EMAIL_CHANGE_PER_DAY requests in 24 hours: then 429 EMAIL_CHANGE_LIMIT_REACHED', async () => {
    const u = await signUpVerified(t, smtp);
    for (let i = 0; i < 3; i++)
      await change(u.auth, { newEmail: uniqueEmail('cap'), password: PASSWORD }).expect(202);
    const over = uniqueEmail('cap');
    const refused = await change(u.auth, { newEmail: over, password: PASSWORD }).expect(429);
    expect(refused.body.code).toBe('EMAIL_CHANGE_LIMIT_REACHED');
    const [{ n }] = await t.db.query(
      `SELECT count(*)::int AS n FROM account_tokens WHERE "userId" = $1 AND "newEmail" = $2`,
      [u.id, over],
    );
    expect(n).toBe(0);
  });

  it('the role follows ADMIN_EMAILS: ADMIN leaves with the listed address and comes with it; both audited', async () => {
    const boss = await signUpVerified(t, smtp, 'boss@example.com');
    const me = await t.http.get('/api/auth/session').set(boss.auth).expect(200);
    expect(me.body.user.role).toBe('ADMIN');
    const away = uniqueEmail('former-boss');
    await change(boss.auth, { newEmail: away, password: PASSWORD }).expect(202);
    const left = await confirm((await smtp.waitForMail(away, { subject: CONFIRM_SUBJECT })).token);
    expect(left.body.user).toMatchObject({ email: away, role: 'USER' });
    await t.http.get('/api/users').set(boss.auth).expect(403);

    const heir = await signUpVerified(t, smtp);
    await change(heir.auth, { newEmail: 'boss@example.com', password: PASSWORD }).expect(202);
    const mail = await smtp.waitForMail('boss@example.com', { subject: CONFIRM_SUBJECT });
    const came = await confirm(mail.token).expect(200);
    expect(came.body.user).toMatchObject({ email: 'boss@example.com', role: 'ADMIN' });

    const audit = await t.db.query(
      `SELECT "targetId", "actorType", details FROM audit_events WHERE action = 'user.role.change'
       AND "targetId" = ANY($1) ORDER BY at`,
      [[boss.id, heir.id]],
    );
    expect(audit).toEqual([
      {
        targetId: boss.id,
        actorType: 'system',
        details: { from: 'ADMIN', to: 'USER', reason: 'ADMIN_EMAILS' },
      },
      {
        targetId: heir.id,
        actorType: 'system',
        details: { from: 'USER', to: 'ADMIN', reason: 'ADMIN_EMAILS' },
      },
    ]);
  });

  async function issueFor(id: string): Promise<string> {
    const user = await t.app.get(UsersService).get(id);
    return (await t.app.get(AuthService).issueToken(user)).accessToken;
  }
});
