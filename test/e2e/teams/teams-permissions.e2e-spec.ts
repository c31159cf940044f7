import type { Response } from 'supertest';
import type { Chat } from '../../../src/chats/chat.entity';
import { TeamInvitationsService } from '../../../src/teams/team-invitations.service';
import type { Team } from '../../../src/teams/team.entity';
import { newChat, newTeam, newUser, sessionOf, type TestUser } from '../../support/factories';
import { createTestApp, type TestApp } from '../../support/test-app';

/**
 * Every team route and every chat route a team changes, called by an OWNER, an ADMIN, a MEMBER,
 * a non-member and an anonymous caller, each on a fresh team, with the expected status.
 */
describe('Teams: permission matrix', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  interface Fixture {
    team: Team;
    owner: TestUser;
    admin: TestUser;
    member: TestUser;
    outsider: TestUser;
    /** Another MEMBER: the target of member changes and owner of `shared`. */
    other: TestUser;
    /** `other`'s chat, shared with the team. */
    shared: Chat;
    /** A pending invitation of the team. */
    invitationId: string;
  }

  async function fixture(): Promise<Fixture> {
    const [owner, admin, member, outsider, other] = await Promise.all(
      [1, 2, 3, 4, 5].map(() => newUser(t)),
    );
    const team = await newTeam(t, owner, {
      members: [
        [admin, 'ADMIN'],
        [member, 'MEMBER'],
        [other, 'MEMBER'],
      ],
    });
    const shared = await newChat(t, other, { title: 'shared', messages: ['hi'], teamId: team.id });
    const { invitation } = await t.app
      .get(TeamInvitationsService)
      .create(sessionOf(owner), team.id, { email: `pending-${team.id}@example.com` });
    return { team, owner, admin, member, outsider, other, shared, invitationId: invitation.id };
  }

  type Who = 'owner' | 'admin' | 'member' | 'outsider' | 'anonymous';
  type Call = (f: Fixture, caller: TestUser | null) => Promise<Response>;
  const WHO: Who[] = ['owner', 'admin', 'member', 'outsider', 'anonymous'];
  const auth = (u: TestUser | null) => u?.auth ?? {};

  // [route, call, expected status for owner, admin, member, outsider, anonymous]
  const routes: [string, Call, number[]][] = [
    [
      'POST /api/teams',
      (_f, u) => t.http.post('/api/teams').set(auth(u)).send({ name: 'n' }),
      [201, 201, 201, 201, 401],
    ],
    ['GET /api/teams', (_f, u) => t.http.get('/api/teams').set(auth(u)), [200, 200, 200, 200, 401]],
    [
      'GET /api/teams/{id}',
      (f, u) => t.http.get(`/api/teams/${f.team.id}`).set(auth(u)),
      [200, 200, 200, 404, 401],
    ],
    [
      'PATCH /api/teams/{id}',
      (f, u) => t.http.patch(`/api/teams/${f.team.id}`).set(auth(u)).send({ name: 'x' }),
      [200, 200, 403, 404, 401],
    ],
    [
      'DELETE /api/teams/{id}',
      (f, u) => t.http.delete(`/api/teams/${f.team.id}`).set(auth(u)),
      [200, 403, 403, 404, 401],
    ],
    [
      'GET /api/teams/{id}/members',
      (f, u) => t.http.get(`/api/teams/${f.team.id}/members`).set(auth(u)),
      [200, 200, 200, 404, 401],
    ],
    [
      'PATCH /api/teams/{id}/members/{member}',
      (f, u) =>
        t.http
          .patch(`/api/teams/${f.team.id}/members/${f.other.user.id}`)
          .set(auth(u))
          .send({ role: 'ADMIN' }),
      [200, 200, 403, 404, 401],
    ],
    [
      'DELETE /api/teams/{id}/members/{member}',
      (f, u) => t.http.delete(`/api/teams/${f.team.id}/members/${f.other.user.id}`).set(auth(u)),
      [200, 200, 403, 404, 401],
    ],
    [
      'DELETE /api/teams/{id}/members/{self} (leave)',
      (f, u) =>
        t.http
          .delete(`/api/teams/${f.team.id}/members/${u?.user.id ?? f.owner.user.id}`)
          .set(auth(u)),
      [409, 200, 200, 404, 401],
    ],
    [
      'POST /api/teams/{id}/invitations',
      (f, u) =>
        t.http
          .post(`/api/teams/${f.team.id}/invitations`)
          .set(auth(u))
          .send({ email: 'new@example.com' }),
      [201, 201, 403, 404, 401],
    ],
    [
      'GET /api/teams/{id}/invitations',
      (f, u) => t.http.get(`/api/teams/${f.team.id}/invitations`).set(auth(u)),
      [200, 200, 403, 404, 401],
    ],
    [
      'DELETE /api/teams/{id}/invitations/{id}',
      (f, u) => t.http.delete(`/api/teams/${f.team.id}/invitations/${f.invitationId}`).set(auth(u)),
      [200, 200, 403, 404, 401],
    ],
    [
      'GET /api/teams/{id}/chats',
      (f, u) => t.http.get(`/api/teams/${f.team.id}/chats`).set(auth(u)),
      [200, 200, 200, 404, 401],
    ],
    [
      'GET /api/invitations',
      (_f, u) => t.http.get('/api/invitations').set(auth(u)),
      [200, 200, 200, 200, 401],
    ],
    [
      'POST /api/invitations/accept (sent to the outsider)',
      async (f, u) => {
        const { token } = await t.app
          .get(TeamInvitationsService)
          .create(sessionOf(f.owner), f.team.id, { email: f.outsider.user.email });
        return t.http.post('/api/invitations/accept').set(auth(u)).send({ token });
      },
      [403, 403, 403, 200, 401],
    ],
    [
      'PUT /api/chats/{own chat}/team (share)',
      async (f, u) => {
        const chat = await newChat(t, u ?? f.other);
        return t.http.put(`/api/chats/${chat.id}/team`).set(auth(u)).send({ teamId: f.team.id });
      },
      [200, 200, 200, 404, 401],
    ],
    [
      'PUT /api/chats/{shared}/team (unshare)',
      (f, u) => t.http.put(`/api/chats/${f.shared.id}/team`).set(auth(u)).send({ teamId: null }),
      [200, 200, 403, 404, 401],
    ],
    [
      'PUT /api/chats/{shared}/team (re-share elsewhere)',
      async (f, u) => {
        const elsewhere = u ? await newTeam(t, u) : f.team;
        return t.http
          .put(`/api/chats/${f.shared.id}/team`)
          .set(auth(u))
          .send({ teamId: elsewhere.id });
      },
      [403, 403, 403, 404, 401],
    ],
    [
      'GET /api/chats/{shared}',
      (f, u) => t.http.get(`/api/chats/${f.shared.id}`).set(auth(u)),
      [200, 200, 200, 404, 401],
    ],
    [
      'GET /api/chats/{shared}/messages',
      (f, u) => t.http.get(`/api/chats/${f.shared.id}/messages`).set(auth(u)),
      [200, 200, 200, 404, 401],
    ],
    [
      'PATCH /api/chats/{shared}',
      (f, u) => t.http.patch(`/api/chats/${f.shared.id}`).set(auth(u)).send({ title: 'renamed' }),
      [200, 200, 403, 404, 401],
    ],
    [
      'DELETE /api/chats/{shared}',
      (f, u) => t.http.delete(`/api/chats/${f.shared.id}`).set(auth(u)),
      [200, 200, 403, 404, 401],
    ],
    [
      'GET /api/chats?scope=all',
      (_f, u) => t.http.get('/api/chats?scope=all').set(auth(u)),
      [200, 200, 200, 200, 401],
    ],
  ];
  const cells = routes.flatMap(([route, call, statuses]) =>
    WHO.map((who, i) => [route, who, statuses[i], call] as const),
  );

  it.each(cells)('%s as %s → %i', async (_route, who, status, call) => {
    const f = await fixture();
    const caller = who === 'anonymous' ? null : f[who];
    const res = await call(f, caller);
    expect({ status: res.status, body: res.body }).toEqual({
      status,
      body: expect.objectContaining({ success: status < 400 }),
    });
    if (status >= 400)
      expect(res.body).toEqual(expect.objectContaining({ code: expect.any(String) }));
  });

  it('applies a role change on the next request, whatever the token says', async () => {
    const f = await fixture();
    const patch = () =>
      t.http.patch(`/api/teams/${f.team.id}`).set(f.member.auth).send({ name: 'm' });
    await patch().expect(403);
    await t.http
      .patch(`/api/teams/${f.team.id}/members/${f.member.user.id}`)
      .set(f.owner.auth)
      .send({ role: 'ADMIN' })
      .expect(200);
    await patch().expect(200);
    await t.http
      .delete(`/api/teams/${f.team.id}/members/${f.member.user.id}`)
      .set(f.owner.auth)
      .expect(200);
    await patch().expect(404);
    await t.http.get(`/api/chats/${f.shared.id}`).set(f.member.auth).expect(404);
  });
});
