import { OAuthTestServer } from '../../servers/oauth-server';
import { plantKey, signUp, uniqueEmail, verifyFromMailFile } from '../../support/accounts';
import { ledgerOf, PASSWORD } from '../../support/factories';
import { oauthDance, type Provider } from '../../support/oauth-browser';
import { createTestApp, type TestApp } from '../../support/test-app';

/**
 * Someone signs up with another person's address and a password of their choosing, before that
 * person ever arrives; then the real owner signs in with a provider that verified the address.
 */
describe('Pre-registration takeover through social login fails', () => {
  const oauth = new OAuthTestServer();
  let t: TestApp;

  const bearerOf = (session: string) => ({
    Authorization: `Bearer ${session.replace(/^session_token=/, '')}`,
  });
  const login = (email: string, password = PASSWORD) =>
    t.http.post('/api/auth/login').send({ email, password });

  beforeAll(async () => {
    await oauth.start();
    t = await createTestApp({ ...oauth.env(), ADMIN_EMAILS: 'owner-admin@example.com' });
  });
  afterAll(async () => {
    await t.close();
    await oauth.stop();
  });
  beforeEach(() => oauth.reset());

  it.each<[Provider, (email: string) => void]>([
    ['google', (email) => oauth.asGoogle(`g-${email}`, email, true)],
    ['github', (email) => oauth.asGitHub(Math.floor(Math.random() * 1e9), email, true)],
  ])(
    'the attacker’s password, session and API key stop working once the owner signs in with %s',
    async (provider, as) => {
      // 1. The attacker signs up as the victim and sets up lasting access.
      const victim = uniqueEmail(`victim-${provider}`);
      const attacker = await signUp(t, victim);
      // The API makes no key for an unproven address; one made before that rule still counts.
      const refused = await t.http.post('/api/keys').set(attacker.auth).send({ name: 'x' });
      expect(refused.status).toBe(403);
      const keyAuth = await plantKey(t, attacker.id);
      await t.http.get('/api/chats').set(keyAuth).expect(200);
      // What the squatter plants goes with the takeover.
      const planted = await t.http
        .post('/api/chats')
        .set(attacker.auth)
        .send({ title: 'planted' })
        .expect(201);
      await t.http.post('/api/teams').set(attacker.auth).send({ name: 'Planted' }).expect(201);
      await t.http
        .put('/api/user/preferences')
        .set(attacker.auth)
        .send({ theme: 'dark' })
        .expect(200);

      // 2. The victim signs in with a provider that verified the address.
      as(victim);
      const { session, location } = await oauthDance(t.http, oauth, provider);
      expect(location).toBe('/dashboard');
      expect(session).toBeDefined();
      const owner = bearerOf(session!);
      const me = await t.http.get('/api/auth/session').set(owner).expect(200);
      expect(me.body.user.id).toBe(attacker.id); // the same account, now the owner's
      const chat = await t.http
        .post('/api/chats')
        .set(owner)
        .send({ title: 'private' })
        .expect(201);

      // 3. The attacker's password is refused, and their old token and key read nothing.
      await login(victim).expect(401);
      await t.http.get(`/api/chats/${chat.body.data.id}`).set(attacker.auth).expect(401);
      await t.http.get(`/api/chats/${chat.body.data.id}`).set(keyAuth).expect(401);
      await t.http.get(`/api/chats/${chat.body.data.id}`).set(owner).expect(200);

      const [user] = await t.db.query(
        'SELECT password, "emailVerifiedAt" FROM users WHERE id = $1',
        [attacker.id],
      );
      expect(user.password).toBeNull();
      expect(user.emailVerifiedAt).not.toBeNull();
      // Verified at that moment: the sign-up bonus, once.
      expect(await ledgerOf(t, attacker.id)).toEqual({ credits: 100, ledgerSum: 100, entries: 1 });
      const audit = await t.db.query(
        `SELECT "actorType", details FROM audit_events
         WHERE action = 'user.social_takeover' AND "targetId" = $1`,
        [attacker.id],
      );
      expect(audit).toEqual([
        {
          actorType: 'system',
          details: { provider, keysRevoked: 1, chatsDeleted: 1, tasksDeleted: 0, teamsLeft: 1 },
        },
      ]);
      const left = await t.db.query(
        `SELECT (SELECT count(*)::int FROM chats WHERE id = $2) AS chats,
                (SELECT count(*)::int FROM team_members WHERE "userId" = $1) AS teams,
                (SELECT preferences FROM users WHERE id = $1) AS preferences`,
        [attacker.id, planted.body.data.id],
      );
      expect(left).toEqual([{ chats: 0, teams: 0, preferences: null }]);

      // A second social sign-in is an ordinary login: nothing is taken over again.
      oauth.reset();
      as(victim);
      await oauthDance(t.http, oauth, provider);
      expect(await ledgerOf(t, attacker.id)).toEqual({ credits: 100, ledgerSum: 100, entries: 1 });
    },
  );

  it('an email the provider did not verify is never used to link, and changes nothing', async () => {
    const email = uniqueEmail('squatted');
    const attacker = await signUp(t, email);
    oauth.asGoogle('g-unverified', email, false);
    const { location, session } = await oauthDance(t.http, oauth, 'google');
    expect(location).toBe('/auth/signin?error=OAuthAccountNotLinked');
    expect(session).toBeUndefined();
    await t.http.get('/api/protected').set(attacker.auth).expect(200);
    await login(email).expect(200);
    const [{ n }] = await t.db.query(
      `SELECT count(*)::int AS n FROM audit_events WHERE action = 'user.social_takeover' AND "targetId" = $1`,
      [attacker.id],
    );
    expect(n).toBe(0);
  });

  it('a verified password account is linked, and keeps its password and sessions', async () => {
    const email = uniqueEmail('proven');
    const u = await signUp(t, email);
    await verifyFromMailFile(t, email);
    oauth.asGoogle('g-proven', email, true);
    const { session } = await oauthDance(t.http, oauth, 'google');
    expect(session).toBeDefined();
    await t.http.get('/api/protected').set(u.auth).expect(200);
    await login(email).expect(200);
  });

  it('an ADMIN_EMAILS address squatted with a password becomes ADMIN only for the provider-verified owner', async () => {
    const attacker = await signUp(t, 'owner-admin@example.com');
    expect(attacker.user.role).toBe('USER');
    const refused = await login('owner-admin@example.com').expect(200);
    expect(refused.body.user.role).toBe('USER');
    oauth.asGoogle('g-admin', 'owner-admin@example.com', true);
    const { session } = await oauthDance(t.http, oauth, 'google');
    const me = await t.http.get('/api/auth/session').set(bearerOf(session!)).expect(200);
    expect(me.body.user.role).toBe('ADMIN');
    await login('owner-admin@example.com').expect(401);
  });
});
