import { createHash } from 'node:crypto';
import { InvitationNotifier } from '../../../src/teams/invitation-notifier';
import { newTeam, newUser, type TestUser } from '../../support/factories';
import { createTestApp, type TestApp } from '../../support/test-app';

const fail = (code: string) => ({ success: false, error: expect.any(String), code });
const gone = (reason: string) => ({ ...fail('INVITATION_GONE'), reason });
const DAY_MS = 86_400_000;

describe('Teams: invitations', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  async function setup() {
    const [owner, admin, invitee] = await Promise.all([newUser(t), newUser(t), newUser(t)]);
    const team = await newTeam(t, owner, { name: 'Core', members: [[admin, 'ADMIN']] });
    return { owner, admin, invitee, team };
  }
  const invite = (teamId: string, by: TestUser, body: object) =>
    t.http.post(`/api/teams/${teamId}/invitations`).set(by.auth).send(body);
  const accept = (u: TestUser, token: string) =>
    t.http.post('/api/invitations/accept').set(u.auth).send({ token });
  const membershipsOf = async (teamId: string, u: TestUser) =>
    (
      await t.db.query('SELECT role FROM team_members WHERE "teamId" = $1 AND "userId" = $2', [
        teamId,
        u.user.id,
      ])
    ).map((r: { role: string }) => r.role);

  it('creates an invitation with a one-time token, stored only as its SHA-256', async () => {
    const { owner, team } = await setup();
    const before = Date.now();
    const res = await invite(team.id, owner, { email: ' Bob@Example.COM ', role: 'ADMIN' }).expect(
      201,
    );
    const data = res.body.data;
    expect(res.body).toEqual({
      success: true,
      data: {
        id: expect.any(String),
        teamId: team.id,
        email: 'bob@example.com',
        role: 'ADMIN',
        invitedBy: owner.user.id,
        status: 'PENDING',
        expiresAt: expect.any(String),
        createdAt: expect.any(String),
        token: expect.stringMatching(/^[\w-]{43}$/),
        acceptUrl: `http://localhost:3000/invitations/accept?token=${data.token}`,
      },
    });
    // Seven days from the moment of the request, however long the request took.
    const expiresAt = Date.parse(data.expiresAt);
    expect(expiresAt).toBeGreaterThanOrEqual(before + 7 * DAY_MS - 1000);
    expect(expiresAt).toBeLessThanOrEqual(Date.now() + 7 * DAY_MS + 1000);
    const [row] = await t.db.query('SELECT * FROM team_invitations WHERE id = $1', [data.id]);
    expect(row.tokenHash).toBe(createHash('sha256').update(data.token).digest('hex'));
    expect(JSON.stringify(row)).not.toContain(data.token);
    const list = await t.http.get(`/api/teams/${team.id}/invitations`).set(owner.auth).expect(200);
    const { token, acceptUrl, ...listed } = data;
    expect(acceptUrl).toContain(token);
    expect(list.body.data).toEqual([listed]);
  });

  it('defaults the role to MEMBER; only an OWNER may invite an OWNER', async () => {
    const { owner, admin, team } = await setup();
    const res = await invite(team.id, admin, { email: 'm@example.com' }).expect(201);
    expect(res.body.data.role).toBe('MEMBER');
    const denied = await invite(team.id, admin, { email: 'o@example.com', role: 'OWNER' });
    expect([denied.status, denied.body]).toEqual([403, fail('FORBIDDEN')]);
    await invite(team.id, owner, { email: 'o@example.com', role: 'OWNER' }).expect(201);
  });

  it('refuses invalid bodies with 400 and a member email with 409 ALREADY_MEMBER', async () => {
    const { owner, admin, team } = await setup();
    for (const body of [
      {},
      { email: 'nope' },
      { email: 'a@b.co', role: 'KING' },
      { email: 'a@b.co', x: 1 },
    ]) {
      expect((await invite(team.id, owner, body)).body).toEqual(fail('VALIDATION_FAILED'));
    }
    const res = await invite(team.id, owner, { email: admin.user.email.toUpperCase() });
    expect([res.status, res.body]).toEqual([409, fail('ALREADY_MEMBER')]);
  });

  it('accepts: the user joins with the invited role, and the invitation leaves every list', async () => {
    const { owner, invitee, team } = await setup();
    const { token } = (await invite(team.id, owner, { email: invitee.user.email, role: 'ADMIN' }))
      .body.data;
    const pending = await t.http.get('/api/invitations').set(invitee.auth).expect(200);
    expect(pending.body.data).toEqual([
      expect.objectContaining({
        teamId: team.id,
        role: 'ADMIN',
        team: { id: team.id, name: 'Core' },
      }),
    ]);
    expect(JSON.stringify(pending.body)).not.toMatch(/token/i);
    const res = await accept(invitee, token).expect(200);
    expect(res.body).toEqual({
      success: true,
      data: expect.objectContaining({ id: team.id, name: 'Core', role: 'ADMIN' }),
    });
    expect(await membershipsOf(team.id, invitee)).toEqual(['ADMIN']);
    expect((await t.http.get('/api/invitations').set(invitee.auth)).body.data).toEqual([]);
    expect(
      (await t.http.get(`/api/teams/${team.id}/invitations`).set(owner.auth)).body.data,
    ).toEqual([]);
    await t.http.get(`/api/teams/${team.id}`).set(invitee.auth).expect(200);
  });

  it('matches the email case-insensitively and refuses another account with 403', async () => {
    const { owner, invitee, team } = await setup();
    const other = await newUser(t);
    const { token } = (await invite(team.id, owner, { email: invitee.user.email.toUpperCase() }))
      .body.data;
    const res = await accept(other, token);
    expect([res.status, res.body]).toEqual([403, fail('INVITATION_EMAIL_MISMATCH')]);
    expect(await membershipsOf(team.id, other)).toEqual([]);
    await accept(invitee, token).expect(200);
  });

  it('answers 410 EXPIRED after expiresAt, and lists the invitation as EXPIRED', async () => {
    const { owner, invitee, team } = await setup();
    const { id, token } = (await invite(team.id, owner, { email: invitee.user.email })).body.data;
    await t.db.query(
      `UPDATE team_invitations SET "expiresAt" = now() - interval '1 second' WHERE id = $1`,
      [id],
    );
    const res = await accept(invitee, token);
    expect([res.status, res.body]).toEqual([410, gone('EXPIRED')]);
    expect(await membershipsOf(team.id, invitee)).toEqual([]);
    const list = await t.http.get(`/api/teams/${team.id}/invitations`).set(owner.auth).expect(200);
    expect(list.body.data.map((i: { status: string }) => i.status)).toEqual(['EXPIRED']);
    expect((await t.http.get('/api/invitations').set(invitee.auth)).body.data).toEqual([]);
  });

  it('revokes: 200, then 410 REVOKED on accept and 404 on a second revoke', async () => {
    const { owner, admin, invitee, team } = await setup();
    const { id, token } = (await invite(team.id, owner, { email: invitee.user.email })).body.data;
    const other = await newTeam(t, owner);
    await t.http.delete(`/api/teams/${other.id}/invitations/${id}`).set(owner.auth).expect(404);
    const res = await t.http.delete(`/api/teams/${team.id}/invitations/${id}`).set(admin.auth);
    expect([res.status, res.body]).toEqual([200, { success: true }]);
    expect((await accept(invitee, token)).body).toEqual(gone('REVOKED'));
    await t.http.delete(`/api/teams/${team.id}/invitations/${id}`).set(owner.auth).expect(404);
    expect(await membershipsOf(team.id, invitee)).toEqual([]);
  });

  it('re-inviting the same email revokes the earlier token', async () => {
    const { owner, invitee, team } = await setup();
    const first = (await invite(team.id, owner, { email: invitee.user.email })).body.data;
    const second = (await invite(team.id, owner, { email: invitee.user.email })).body.data;
    expect((await accept(invitee, first.token)).status).toBe(410);
    await accept(invitee, second.token).expect(200);
  });

  it('is idempotent for the member, and 410 USED once they are no longer one', async () => {
    const { owner, invitee, team } = await setup();
    const { token } = (await invite(team.id, owner, { email: invitee.user.email })).body.data;
    const first = await accept(invitee, token).expect(200);
    const again = await accept(invitee, token).expect(200);
    expect(again.body).toEqual(first.body);
    expect(await membershipsOf(team.id, invitee)).toEqual(['MEMBER']);
    await t.http
      .delete(`/api/teams/${team.id}/members/${invitee.user.id}`)
      .set(invitee.auth)
      .expect(200);
    const reused = await accept(invitee, token);
    expect([reused.status, reused.body]).toEqual([410, gone('USED')]);
    expect(await membershipsOf(team.id, invitee)).toEqual([]);
  });

  it('gives one membership for concurrent accepts of one invitation', async () => {
    const { owner, invitee, team } = await setup();
    const { token } = (await invite(team.id, owner, { email: invitee.user.email })).body.data;
    const results = await Promise.all(Array.from({ length: 8 }, () => accept(invitee, token)));
    expect(results.map((r) => r.status)).toEqual(Array(8).fill(200));
    expect(await membershipsOf(team.id, invitee)).toEqual(['MEMBER']);
  });

  it('keeps the existing role when a member accepts another invitation', async () => {
    const { owner, admin, team } = await setup();
    const { id } = (await invite(team.id, owner, { email: 'x@example.com' })).body.data;
    // An invitation that predates the membership (the API refuses to invite a member).
    const token = 'a-token-for-an-existing-member';
    await t.db.query(
      `UPDATE team_invitations SET email = $2, role = 'OWNER', "tokenHash" = $3 WHERE id = $1`,
      [id, admin.user.email, createHash('sha256').update(token).digest('hex')],
    );
    await accept(admin, token).expect(200);
    expect(await membershipsOf(team.id, admin)).toEqual(['ADMIN']);
  });

  it('answers 404 for an unknown token and 400 for a malformed one', async () => {
    const u = await newUser(t);
    expect((await accept(u, 'x'.repeat(43))).body).toEqual(fail('NOT_FOUND'));
    for (const body of [{}, { token: 'short' }, { token: 42 }]) {
      await t.http.post('/api/invitations/accept').set(u.auth).send(body).expect(400);
    }
  });

  it('lists only pending, unexpired invitations addressed to me', async () => {
    const { owner, invitee, team } = await setup();
    const otherTeam = await newTeam(t, owner, { name: 'Other' });
    await invite(team.id, owner, { email: 'someone-else@example.com' }).expect(201);
    const revoked = (await invite(otherTeam.id, owner, { email: invitee.user.email })).body.data;
    await t.http.delete(`/api/teams/${otherTeam.id}/invitations/${revoked.id}`).set(owner.auth);
    const live = (await invite(team.id, owner, { email: invitee.user.email })).body.data;
    const res = await t.http.get('/api/invitations').set(invitee.auth).expect(200);
    expect(res.body.data.map((i: { id: string }) => i.id)).toEqual([live.id]);
  });

  it('hands each invitation to the InvitationNotifier; a failing notifier does not undo it', async () => {
    const { owner, team } = await setup();
    const notify = jest.spyOn(t.app.get(InvitationNotifier), 'notify');
    try {
      const res = await invite(team.id, owner, { email: 'n@example.com', role: 'ADMIN' });
      expect(notify).toHaveBeenCalledWith({
        email: 'n@example.com',
        teamId: team.id,
        teamName: 'Core',
        role: 'ADMIN',
        acceptUrl: res.body.data.acceptUrl,
        expiresAt: new Date(res.body.data.expiresAt),
        invitedBy: { id: owner.user.id, name: owner.user.name, email: owner.user.email },
      });
      notify.mockRejectedValueOnce(new Error('smtp down'));
      await invite(team.id, owner, { email: 'm@example.com' }).expect(201);
    } finally {
      notify.mockRestore();
    }
  });
});

describe('Teams: invitation lifetime', () => {
  it('follows INVITATION_TTL_DAYS', async () => {
    const t = await createTestApp({ INVITATION_TTL_DAYS: '2' });
    try {
      const owner = await newUser(t);
      const team = await newTeam(t, owner);
      const res = await t.http
        .post(`/api/teams/${team.id}/invitations`)
        .set(owner.auth)
        .send({ email: 'ttl@example.com' })
        .expect(201);
      const ttl = Date.parse(res.body.data.expiresAt) - Date.parse(res.body.data.createdAt);
      expect(Math.abs(ttl - 2 * DAY_MS)).toBeLessThan(5000);
    } finally {
      await t.close();
    }
  });
});
