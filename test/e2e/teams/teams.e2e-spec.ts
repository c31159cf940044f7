import { newChat, newTeam, newUser, type TestUser } from '../../support/factories';
import { createTestApp, type TestApp } from '../../support/test-app';

const fail = (code: string) => ({ success: false, error: expect.any(String), code });
const ISO = expect.stringMatching(/^\d{4}-\d\d-\d\dT/);

describe('Teams: CRUD, members, roles and the last-owner rule', () => {
  let t: TestApp;
  let admin: TestUser; // a site ADMIN, to delete users through the API

  beforeAll(async () => {
    t = await createTestApp();
    admin = await newUser(t, { role: 'ADMIN' });
  });
  afterAll(() => t.close());

  const members = (teamId: string) =>
    t.db.query(`SELECT "userId", role FROM team_members WHERE "teamId" = $1 ORDER BY "createdAt"`, [
      teamId,
    ]);
  const roleOf = async (teamId: string, u: TestUser) =>
    (await members(teamId)).find((m: { userId: string }) => m.userId === u.user.id)?.role;
  const path = (teamId: string, userId?: string) =>
    `/api/teams/${teamId}/members${userId ? `/${userId}` : ''}`;

  it('creates a team whose creator is OWNER, lists it and shows its members', async () => {
    const owner = await newUser(t, { name: 'Ada' });
    const res = await t.http
      .post('/api/teams')
      .set(owner.auth)
      .send({ name: ' Core ', description: 'The core team' })
      .expect(201);
    const team = {
      id: expect.any(String),
      name: 'Core',
      description: 'The core team',
      role: 'OWNER',
      createdAt: ISO,
      updatedAt: ISO,
    };
    expect(res.body).toEqual({ success: true, data: team });
    const id = res.body.data.id;
    await newTeam(t, await newUser(t), { name: 'Not mine' });
    await newTeam(t, owner, { name: 'Another' });
    const list = await t.http.get('/api/teams').set(owner.auth).expect(200);
    expect(list.body.data.map((x: { name: string }) => x.name)).toEqual(['Another', 'Core']);
    const got = await t.http.get(`/api/teams/${id}`).set(owner.auth).expect(200);
    expect(got.body.data).toEqual({
      ...team,
      members: [
        {
          id: owner.user.id,
          name: 'Ada',
          email: owner.user.email,
          avatar: null,
          role: 'OWNER',
          joinedAt: ISO,
        },
      ],
    });
  });

  it('shows each member their own role, and members oldest first without private fields', async () => {
    const [owner, a, m] = await Promise.all([newUser(t), newUser(t), newUser(t)]);
    const team = await newTeam(t, owner, {
      members: [
        [a, 'ADMIN'],
        [m, 'MEMBER'],
      ],
    });
    const mine = await t.http.get('/api/teams').set(m.auth).expect(200);
    expect(mine.body.data).toEqual([expect.objectContaining({ id: team.id, role: 'MEMBER' })]);
    const res = await t.http.get(path(team.id)).set(m.auth).expect(200);
    expect(res.body.data.map((x: { id: string; role: string }) => [x.id, x.role])).toEqual([
      [owner.user.id, 'OWNER'],
      [a.user.id, 'ADMIN'],
      [m.user.id, 'MEMBER'],
    ]);
    expect(JSON.stringify(res.body)).not.toMatch(/password|credits|paymentCustomerId/);
  });

  it.each([
    ['missing name', {}],
    ['blank name', { name: '  ' }],
    ['name of 101 characters', { name: 'x'.repeat(101) }],
    ['description of 1001 characters', { name: 'ok', description: 'd'.repeat(1001) }],
    ['unknown field', { name: 'ok', role: 'OWNER' }],
  ])('refuses a team with %s: 400, nothing written', async (_name, body) => {
    const u = await newUser(t);
    const res = await t.http.post('/api/teams').set(u.auth).send(body).expect(400);
    expect(res.body).toEqual(fail('VALIDATION_FAILED'));
    expect(await t.db.query('SELECT 1 FROM team_members WHERE "userId" = $1', [u.user.id])).toEqual(
      [],
    );
  });

  it('patches name and description; null clears the description, a null name is 400', async () => {
    const owner = await newUser(t);
    const team = await newTeam(t, owner, { name: 'Old' });
    const url = `/api/teams/${team.id}`;
    const res = await t.http.patch(url).set(owner.auth).send({ description: 'D' }).expect(200);
    expect(res.body.data).toEqual(expect.objectContaining({ name: 'Old', description: 'D' }));
    const cleared = await t.http
      .patch(url)
      .set(owner.auth)
      .send({ name: 'New', description: null })
      .expect(200);
    expect(cleared.body.data).toEqual(expect.objectContaining({ name: 'New', description: null }));
    await t.http.patch(url).set(owner.auth).send({ name: null }).expect(400);
    await t.http.patch(url).set(owner.auth).send({ name: '' }).expect(400);
    await t.http.get('/api/teams/not-a-uuid').set(owner.auth).expect(400);
  });

  describe('member roles', () => {
    let owner: TestUser, a: TestUser, a2: TestUser, m: TestUser, m2: TestUser;
    let teamId: string;
    beforeEach(async () => {
      [owner, a, a2, m, m2] = await Promise.all([1, 2, 3, 4, 5].map(() => newUser(t)));
      const team = await newTeam(t, owner, {
        members: [
          [a, 'ADMIN'],
          [a2, 'ADMIN'],
          [m, 'MEMBER'],
          [m2, 'MEMBER'],
        ],
      });
      teamId = team.id;
    });
    const patch = (by: TestUser, target: TestUser, role: unknown) =>
      t.http.patch(path(teamId, target.user.id)).set(by.auth).send({ role });

    it('answers the changed member: id, name, email, avatar, role', async () => {
      const res = await patch(a, m, 'ADMIN').expect(200);
      expect(res.body).toEqual({
        success: true,
        data: {
          id: m.user.id,
          name: m.user.name,
          email: m.user.email,
          avatar: null,
          role: 'ADMIN',
          joinedAt: ISO,
        },
      });
    });

    it('only an OWNER grants or removes OWNER; an ADMIN manages MEMBERs only', async () => {
      for (const [by, target, role] of [
        [a, m, 'OWNER'],
        [a, a2, 'MEMBER'],
        [a, owner, 'MEMBER'],
        [m, m2, 'ADMIN'],
        [m, m, 'ADMIN'],
        [a, a, 'OWNER'],
      ] as const) {
        const res = await patch(by, target, role);
        expect([res.status, res.body]).toEqual([403, fail('FORBIDDEN')]);
      }
      for (const [by, target] of [
        [a, a2],
        [a, owner],
        [m, m2],
      ] as const) {
        await t.http.delete(path(teamId, target.user.id)).set(by.auth).expect(403);
      }
      expect(await members(teamId)).toHaveLength(5);
      await patch(owner, m, 'OWNER').expect(200);
      await patch(owner, a2, 'MEMBER').expect(200);
      await patch(a, a2, 'ADMIN').expect(200);
      await patch(a, a, 'MEMBER').expect(200); // lowering one's own role
      await t.http.delete(path(teamId, m2.user.id)).set(a2.auth).expect(200);
      expect(await members(teamId)).toEqual([
        { userId: owner.user.id, role: 'OWNER' },
        { userId: a.user.id, role: 'MEMBER' },
        { userId: a2.user.id, role: 'ADMIN' },
        { userId: m.user.id, role: 'OWNER' },
      ]);
    });

    it('answers 404 for a target that is not a member and 400 for a bad role', async () => {
      const stranger = await newUser(t);
      await patch(owner, stranger, 'MEMBER').expect(404);
      await t.http.delete(path(teamId, stranger.user.id)).set(owner.auth).expect(404);
      for (const role of ['KING', undefined, 'owner']) {
        expect((await patch(owner, m, role)).body).toEqual(fail('VALIDATION_FAILED'));
      }
      await t.http.patch(path(teamId, 'nope')).set(owner.auth).send({ role: 'MEMBER' }).expect(400);
    });

    it('lets a member leave; then the team is 404 to them', async () => {
      await t.http.delete(path(teamId, m.user.id)).set(m.auth).expect(200);
      expect(await roleOf(teamId, m)).toBeUndefined();
      await t.http.get(`/api/teams/${teamId}`).set(m.auth).expect(404);
      expect((await t.http.get('/api/teams').set(m.auth)).body.data).toEqual([]);
    });

    it('refuses with 409 LAST_OWNER to demote or remove the only OWNER', async () => {
      let res = await patch(owner, owner, 'ADMIN');
      expect([res.status, res.body]).toEqual([409, fail('LAST_OWNER')]);
      res = await t.http.delete(path(teamId, owner.user.id)).set(owner.auth);
      expect([res.status, res.body]).toEqual([409, fail('LAST_OWNER')]);
      await patch(owner, a, 'OWNER').expect(200);
      await t.http.delete(path(teamId, owner.user.id)).set(owner.auth).expect(200);
      res = await patch(a, a, 'MEMBER');
      expect([res.status, res.body]).toEqual([409, fail('LAST_OWNER')]);
      expect(await roleOf(teamId, a)).toBe('OWNER');
    });

    it('keeps one OWNER when two OWNERs demote or remove each other at once', async () => {
      await patch(owner, a, 'OWNER').expect(200);
      const [x, y] = await Promise.all([
        patch(owner, owner, 'MEMBER'),
        t.http.delete(path(teamId, a.user.id)).set(a.auth),
      ]);
      expect([x.status, y.status].sort()).toEqual([200, 409]);
      const owners = (await members(teamId)).filter((r: { role: string }) => r.role === 'OWNER');
      expect(owners).toHaveLength(1);
    });
  });

  it('repeats the concurrent last-owner race without ever losing the OWNER', async () => {
    for (let round = 0; round < 5; round++) {
      const [o1, o2] = await Promise.all([newUser(t), newUser(t)]);
      const team = await newTeam(t, o1, { members: [[o2, 'OWNER']] });
      const results = await Promise.all(
        [o1, o2].map((u) => t.http.delete(path(team.id, u.user.id)).set(u.auth)),
      );
      expect(results.map((r) => r.status).sort()).toEqual([200, 409]);
      expect(await members(team.id)).toEqual([{ userId: expect.any(String), role: 'OWNER' }]);
    }
  });

  it('deleting a team deletes memberships and invitations; its chats stay with their owners', async () => {
    const [owner, m] = await Promise.all([newUser(t), newUser(t)]);
    const team = await newTeam(t, owner, { members: [[m, 'MEMBER']] });
    const chat = await newChat(t, m, { title: 'kept', messages: ['x'], teamId: team.id });
    await t.http
      .post(`/api/teams/${team.id}/invitations`)
      .set(owner.auth)
      .send({ email: 'later@example.com' })
      .expect(201);
    const res = await t.http.delete(`/api/teams/${team.id}`).set(owner.auth).expect(200);
    expect(res.body).toEqual({ success: true });
    const count = async (table: string) =>
      Number(
        (await t.db.query(`SELECT count(*) FROM ${table} WHERE "teamId" = $1`, [team.id]))[0].count,
      );
    expect([await count('team_members'), await count('team_invitations')]).toEqual([0, 0]);
    await t.http.get(`/api/teams/${team.id}`).set(owner.auth).expect(404);
    const got = await t.http.get(`/api/chats/${chat.id}`).set(m.auth).expect(200);
    expect(got.body.data).toEqual(expect.objectContaining({ userId: m.user.id, teamId: null }));
    expect(got.body.data.messages.map((x: { content: string }) => x.content)).toEqual(['x']);
    await t.http.get(`/api/chats/${chat.id}`).set(owner.auth).expect(404);
  });

  describe('deleting a user', () => {
    const deleteUser = (u: TestUser) =>
      t.http.delete(`/api/users/${u.user.id}`).set(admin.auth).expect(200);

    it('removes their memberships and their shared chats; the team stays', async () => {
      const [owner, m] = await Promise.all([newUser(t), newUser(t)]);
      const team = await newTeam(t, owner, { members: [[m, 'MEMBER']] });
      await newChat(t, m, { teamId: team.id });
      await deleteUser(m);
      expect(await members(team.id)).toEqual([{ userId: owner.user.id, role: 'OWNER' }]);
      const chats = await t.http.get(`/api/teams/${team.id}/chats`).set(owner.auth).expect(200);
      expect(chats.body.data).toEqual([]);
    });

    it('promotes the longest-standing ADMIN, else MEMBER, when the last OWNER goes', async () => {
      const [owner, m, a1, a2] = await Promise.all([1, 2, 3, 4].map(() => newUser(t)));
      const team = await newTeam(t, owner, {
        members: [
          [m, 'MEMBER'],
          [a1, 'ADMIN'],
          [a2, 'ADMIN'],
        ],
      });
      await deleteUser(owner);
      expect(await roleOf(team.id, a1)).toBe('OWNER');
      expect([await roleOf(team.id, a2), await roleOf(team.id, m)]).toEqual(['ADMIN', 'MEMBER']);
      await deleteUser(a1);
      await deleteUser(a2);
      expect(await members(team.id)).toEqual([{ userId: m.user.id, role: 'OWNER' }]);
      await t.http
        .patch(`/api/teams/${team.id}`)
        .set(m.auth)
        .send({ name: 'mine now' })
        .expect(200);
    });

    it('leaves other OWNERs alone, and deletes a team left with no member', async () => {
      const [o1, o2, solo] = await Promise.all([newUser(t), newUser(t), newUser(t)]);
      const shared = await newTeam(t, o1, { members: [[o2, 'OWNER']] });
      const alone = await newTeam(t, solo);
      await deleteUser(o1);
      expect(await members(shared.id)).toEqual([{ userId: o2.user.id, role: 'OWNER' }]);
      await deleteUser(solo);
      expect(await t.db.query('SELECT id FROM teams WHERE id = $1', [alone.id])).toEqual([]);
    });
  });
});
