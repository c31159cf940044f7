import { SmtpTestServer } from '../../servers/smtp-server';
import {
  followLink,
  plantKey,
  signUp,
  uniqueEmail,
  verificationMail,
  type SignedUp,
} from '../../support/accounts';
import { ledgerOf, PASSWORD } from '../../support/factories';
import { createTestApp, type TestApp } from '../../support/test-app';
import { enrol, SetClock } from '../../support/two-factor';

const NEW_PASSWORD = 'staple battery horse correct';
const ADMIN = 'owner-admin@example.com';

/**
 * Someone signs up with another person's address before that person arrives, and sets up
 * lasting access. The real owner then proves the address with a mailed link: a password reset
 * (the account changes hands) or the verification link (it does not).
 */
describe('Pre-registration takeover through mailed links fails', () => {
  const smtp = new SmtpTestServer();
  const clock = new SetClock();
  let t: TestApp;
  let hour = 0;

  const count = async (sql: string, id: string): Promise<number> =>
    (await t.db.query(`SELECT count(*)::int AS n FROM ${sql}`, [id]))[0].n;

  /** The squatter's setup: 2FA, a key, a chat, a task, a team, preferences. */
  async function squat(email: string) {
    const attacker = await signUp(t, email);
    // What the API refuses an unproven address now.
    const key = await t.http.post('/api/keys').set(attacker.auth).send({ name: 'x' }).expect(403);
    expect(key.body.code).toBe('EMAIL_NOT_VERIFIED');
    const move = await t.http
      .post('/api/user/email')
      .set(attacker.auth)
      .send({ newEmail: uniqueEmail('attacker'), password: PASSWORD })
      .expect(403);
    expect(move.body.code).toBe('EMAIL_NOT_VERIFIED');
    // What it still allows, and a key made before keys needed a proven address.
    const keyAuth = await plantKey(t, attacker.id);
    const e = await enrol(t, clock, attacker.token);
    const auth = { Authorization: `Bearer ${e.token}` };
    await t.http.post('/api/chats').set(auth).send({ title: 'planted' }).expect(201);
    await t.http.post('/api/tasks').set(auth).send(yearlyTask).expect(201);
    await t.http.post('/api/teams').set(auth).send({ name: 'Planted' }).expect(201);
    await t.http.put('/api/user/preferences').set(auth).send({ locale: 'zh' }).expect(200);
    return { attacker, auth, keyAuth };
  }

  async function expectPlantedGone(attacker: SignedUp) {
    expect(await count('chats WHERE "userId" = $1', attacker.id)).toBe(0);
    expect(await count('tasks WHERE "userId" = $1', attacker.id)).toBe(0);
    expect(await count('team_members WHERE "userId" = $1', attacker.id)).toBe(0);
    const [row] = await t.db.query('SELECT preferences FROM users WHERE id = $1', [attacker.id]);
    expect(row.preferences).toBeNull();
  }

  beforeAll(async () => {
    await smtp.start();
    t = await createTestApp(
      {
        ...smtp.env(),
        ADMIN_EMAILS: ADMIN,
        // Tasks need an available model; none is ever called (the task runs once a year).
        OPENAI_API_KEY: 'sk-never-called',
        OPENAI_BASE_URL: 'http://127.0.0.1:9/v1',
      },
      { clock },
    );
  });
  afterAll(async () => {
    await t.close();
    await smtp.stop();
  });
  beforeEach(() => clock.startAt(++hour));

  it('a reset by the owner ends the squatter’s sessions, key, second factor and planted data; ADMIN goes to the owner', async () => {
    const { attacker, auth, keyAuth } = await squat(ADMIN);
    const taken = await t.http
      .post('/api/auth/signup')
      .send({ email: ADMIN, password: NEW_PASSWORD })
      .expect(409);
    expect(taken.body.code).toBe('EMAIL_TAKEN');

    await t.http.post('/api/auth/password/forgot').send({ email: ADMIN }).expect(202);
    const reset = await smtp.waitForMail(ADMIN, { subject: /Reset your password|重置您的密码/ });
    await t.http
      .post('/api/auth/password/reset')
      .send({ token: reset.token, password: NEW_PASSWORD })
      .expect(200);
    await expectPlantedGone(attacker);

    // The owner signs in with no second factor (the squatter's is gone) and is ADMIN.
    const login = await t.http
      .post('/api/auth/login')
      .send({ email: ADMIN, password: NEW_PASSWORD })
      .expect(200);
    expect(login.body.user).toMatchObject({ id: attacker.id, role: 'ADMIN', emailVerified: true });
    const owner = { Authorization: `Bearer ${login.body.accessToken}` };
    const chat = await t.http.post('/api/chats').set(owner).send({ title: 'mine' }).expect(201);
    for (const old of [attacker.auth, auth, keyAuth])
      await t.http.get(`/api/chats/${chat.body.data.id}`).set(old).expect(401);
    await t.http.post('/api/auth/login').send({ email: ADMIN, password: PASSWORD }).expect(401);

    expect(await count('two_factor WHERE "userId" = $1', attacker.id)).toBe(0);
    // Credits are not touched: the sign-up bonus, once, and the ledger agrees.
    expect(await ledgerOf(t, attacker.id)).toEqual({ credits: 100, ledgerSum: 100, entries: 1 });
    // The squatter stored zh: the notice went in the language of the reset request instead.
    const notice = await smtp.waitForMail(ADMIN, { subject: /password was changed/ });
    expect(notice.text).toContain('1 API key was revoked.');
    expect(notice.text).toContain('Two-factor authentication was turned off.');
    expect(notice.text).toContain('chats, scheduled tasks, team memberships and preferences');
  });

  it('the owner following the verification link ends the squatter’s key and second factor, and is told', async () => {
    const email = uniqueEmail('victim');
    const { attacker, keyAuth } = await squat(email);
    await followLink(t, await verificationMail(smtp, email), '/api/auth/verify-email').expect(200);

    await t.http.get('/api/chats').set(keyAuth).expect(401);
    expect(await count('two_factor WHERE "userId" = $1', attacker.id)).toBe(0);
    const told = await smtp.waitForMail(email, { subject: /email address is confirmed|已验证/ });
    expect(told.text).toMatch(/已撤销 1 个 API 密钥|1 API key was revoked/);
    // The account stays with whoever knows its password: nothing of theirs is deleted.
    expect(await count('chats WHERE "userId" = $1', attacker.id)).toBe(1);
  });

  it('an ordinary sign-up that verifies keeps its chats and gets no notice', async () => {
    const u = await signUp(t);
    await t.http.post('/api/chats').set(u.auth).send({ title: 'first' }).expect(201);
    await followLink(t, await verificationMail(smtp, u.email), '/api/auth/verify-email').expect(
      200,
    );
    expect(await count('chats WHERE "userId" = $1', u.id)).toBe(1);
    await t.http.post('/api/keys').set(u.auth).send({ name: 'now' }).expect(201);
    expect(smtp.inbox(u.email).map((m) => m.subject)).toEqual(['Confirm your email address']);
  });
});

const yearlyTask = {
  name: 'Yearly',
  schedule: { cron: '0 0 1 1 *', timezone: 'UTC' },
  prompt: { modelId: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hello' }] },
  target: { mode: 'new_chat' },
};
