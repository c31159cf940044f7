import { SmtpTestServer } from '../../servers/smtp-server';
import { signUpVerified, uniqueEmail, type SignedUp } from '../../support/accounts';
import { PASSWORD } from '../../support/factories';
import { createTestApp, type TestApp } from '../../support/test-app';

const NEW_PASSWORD = 'staple battery horse correct';
const CONFIRM_SUBJECT = /Confirm your new email/;
const RESET_SUBJECT = /Reset your password/;

/**
 * Someone learned the password. While the owner does not notice, they ask to move the account to
 * an address of theirs and make an API key. Every credential change of the owner must end both.
 */
describe('Credential changes end pending links (and keys, when asked)', () => {
  const smtp = new SmtpTestServer();
  let t: TestApp;

  const confirm = (token: string | undefined) =>
    t.http.post('/api/user/email/confirm').send({ token });
  const emailOf = async (id: string): Promise<string> =>
    (await t.db.query('SELECT email FROM users WHERE id = $1', [id]))[0].email;

  /** The thief's foothold: a pending move to their address, and a key. */
  async function thiefIn(victim: SignedUp) {
    const login = await t.http
      .post('/api/auth/login')
      .send({ email: victim.email, password: PASSWORD })
      .expect(200);
    const thief = { Authorization: `Bearer ${login.body.accessToken}` };
    const thiefEmail = uniqueEmail('thief');
    await t.http
      .post('/api/user/email')
      .set(thief)
      .send({ newEmail: thiefEmail, password: PASSWORD })
      .expect(202);
    const link = await smtp.waitForMail(thiefEmail, { subject: CONFIRM_SUBJECT });
    const key = await t.http.post('/api/keys').set(thief).send({ name: 'x' }).expect(201);
    const keyAuth = { Authorization: `Bearer ${key.body.key}` };
    await t.http.get('/api/chats').set(keyAuth).expect(200);
    return { link, keyAuth };
  }

  async function expectLinkDead(victim: SignedUp, token: string | undefined) {
    const res = await confirm(token).expect(400);
    expect(res.body.code).toBe('INVALID_TOKEN');
    expect(await emailOf(victim.id)).toBe(victim.email);
  }

  beforeAll(async () => {
    await smtp.start();
    t = await createTestApp({ ...smtp.env() });
  });
  afterAll(async () => {
    await t.close();
    await smtp.stop();
  });

  it('a password change ends the pending email change; revokeKeys ends the key too', async () => {
    const victim = await signUpVerified(t, smtp);
    const { link, keyAuth } = await thiefIn(victim);
    const changed = await t.http
      .post('/api/auth/password')
      .set(victim.auth)
      .send({ currentPassword: PASSWORD, newPassword: NEW_PASSWORD, revokeKeys: true })
      .expect(200);
    await expectLinkDead(victim, link.token);
    await t.http.get('/api/chats').set(keyAuth).expect(401);
    const fresh = { Authorization: `Bearer ${changed.body.accessToken}` };
    await t.http.get('/api/chats').set(fresh).expect(200);
  });

  it('without revokeKeys a password change keeps the keys, and still ends the link', async () => {
    const victim = await signUpVerified(t, smtp);
    const { link, keyAuth } = await thiefIn(victim);
    await t.http
      .post('/api/auth/password')
      .set(victim.auth)
      .send({ currentPassword: PASSWORD, newPassword: NEW_PASSWORD })
      .expect(200);
    await expectLinkDead(victim, link.token);
    await t.http.get('/api/chats').set(keyAuth).expect(200);
  });

  it('"end all sessions" ends the pending email change', async () => {
    const victim = await signUpVerified(t, smtp);
    const { link } = await thiefIn(victim);
    await t.http.delete('/api/auth/sessions').set(victim.auth).expect(200);
    await expectLinkDead(victim, link.token);
    await t.http.get('/api/auth/session').set(victim.auth).expect(200);
  });

  it('a password reset ends the pending email change and, by default, the keys', async () => {
    const victim = await signUpVerified(t, smtp);
    const { link, keyAuth } = await thiefIn(victim);
    await t.http.post('/api/auth/password/forgot').send({ email: victim.email }).expect(202);
    const reset = await smtp.waitForMail(victim.email, { subject: RESET_SUBJECT });
    await t.http
      .post('/api/auth/password/reset')
      .send({ token: reset.token, password: NEW_PASSWORD })
      .expect(200);
    await expectLinkDead(victim, link.token);
    await t.http.get('/api/chats').set(keyAuth).expect(401);
    const notice = await smtp.waitForMail(victim.email, { subject: /password was changed/ });
    expect(notice.text).toContain('1 API key was revoked.');
    expect(notice.text).toContain('no longer work');
  });

  it('a reset with revokeKeys false keeps the keys', async () => {
    const victim = await signUpVerified(t, smtp);
    const { keyAuth } = await thiefIn(victim);
    await t.http.post('/api/auth/password/forgot').send({ email: victim.email }).expect(202);
    const reset = await smtp.waitForMail(victim.email, { subject: RESET_SUBJECT });
    await t.http
      .post('/api/auth/password/reset')
      .send({ token: reset.token, password: NEW_PASSWORD, revokeKeys: false })
      .expect(200);
    await t.http.get('/api/chats').set(keyAuth).expect(200);
  });

  it('a link older than the last credential change is refused even if it escaped revocation', async () => {
    const victim = await signUpVerified(t, smtp);
    const { link } = await thiefIn(victim);
    await t.http
      .post('/api/auth/password')
      .set(victim.auth)
      .send({ currentPassword: PASSWORD, newPassword: NEW_PASSWORD })
      .expect(200);
    // As if a request racing the change had issued it: unused, unexpired, but older.
    await t.db.query(
      `UPDATE account_tokens SET "usedAt" = NULL WHERE "userId" = $1 AND purpose = 'change_email'`,
      [victim.id],
    );
    await expectLinkDead(victim, link.token);
  });
});
