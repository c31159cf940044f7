import { newChat, newTeam, newUser, type TestUser } from '../../support/factories';
import { createTestApp, type TestApp } from '../../support/test-app';

interface Row {
  id: string;
  title: string;
  userId: string;
  teamId: string | null;
  updatedAt: string;
  messages: { content: string }[];
}

const fail = (code: string) => ({ success: false, error: expect.any(String), code });
const missing = '00000000-0000-4000-8000-000000000000';

describe('Teams: sharing chats', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  async function setup() {
    const [owner, member, outsider] = await Promise.all([newUser(t), newUser(t), newUser(t)]);
    const team = await newTeam(t, owner, { members: [[member, 'MEMBER']] });
    return { owner, member, outsider, team };
  }
  const share = (u: TestUser, chatId: string, teamId: string | null) =>
    t.http.put(`/api/chats/${chatId}/team`).set(u.auth).send({ teamId });
  const list = async (u: TestUser, path: string) =>
    (await t.http.get(path).set(u.auth).expect(200)).body.data as Row[];
  const titles = (rows: Row[]) => rows.map((r) => r.title);
  const age = (chatId: string, hours: number) =>
    t.db.query(`UPDATE chats SET "updatedAt" = now() - $2 * interval '1 hour' WHERE id = $1`, [
      chatId,
      hours,
    ]);

  it("shares a member's own chat; the team's members read it and its messages", async () => {
    const { owner, member, outsider, team } = await setup();
    const chat = await newChat(t, member, { title: 'plan', messages: ['q', 'a'] });
    const res = await share(member, chat.id, team.id).expect(200);
    expect(res.body).toEqual({
      success: true,
      data: expect.objectContaining({ id: chat.id, userId: member.user.id, teamId: team.id }),
    });
    const got = await t.http.get(`/api/chats/${chat.id}`).set(owner.auth).expect(200);
    expect(got.body.data.messages.map((m: { content: string }) => m.content)).toEqual(['q', 'a']);
    const msgs = await t.http.get(`/api/chats/${chat.id}/messages`).set(owner.auth).expect(200);
    expect(msgs.body.data).toHaveLength(2);
    expect(titles(await list(owner, `/api/teams/${team.id}/chats`))).toEqual(['plan']);
    const denied = await t.http.get(`/api/chats/${chat.id}`).set(outsider.auth);
    expect([denied.status, denied.body]).toEqual([404, fail('NOT_FOUND')]);
    expect(JSON.stringify(denied.body)).not.toContain('plan');
  });

  it('does not bump updatedAt when sharing', async () => {
    const { member, team } = await setup();
    const chat = await newChat(t, member);
    await age(chat.id, 3);
    const [before] = await t.db.query('SELECT "updatedAt" FROM chats WHERE id = $1', [chat.id]);
    const res = await share(member, chat.id, team.id).expect(200);
    expect(res.body.data.updatedAt).toBe(before.updatedAt.toISOString());
  });

  it('refuses to share with a team the caller is not in (404) or a bad teamId (400)', async () => {
    const { owner, outsider, team } = await setup();
    const chat = await newChat(t, outsider);
    expect((await share(outsider, chat.id, team.id)).body).toEqual(fail('NOT_FOUND'));
    expect((await share(outsider, chat.id, missing)).status).toBe(404);
    for (const body of [{}, { teamId: 'x' }, { teamId: 5 }, { teamId: team.id, userId: missing }]) {
      const res = await t.http.put(`/api/chats/${chat.id}/team`).set(outsider.auth).send(body);
      expect([res.status, res.body]).toEqual([400, fail('VALIDATION_FAILED')]);
    }
    const [row] = await t.db.query('SELECT "teamId" FROM chats WHERE id = $1', [chat.id]);
    expect(row.teamId).toBeNull();
    // Another user's private chat stays 404, whichever team is named.
    expect((await share(owner, chat.id, team.id)).status).toBe(404);
  });

  it('moves a chat between the owner’s teams, and unshares it', async () => {
    const { owner, member, team } = await setup();
    const second = await newTeam(t, owner, { name: 'second' });
    const chat = await newChat(t, owner, { teamId: team.id });
    await share(owner, chat.id, second.id).expect(200);
    expect(await list(member, `/api/teams/${team.id}/chats`)).toEqual([]);
    const res = await share(owner, chat.id, null).expect(200);
    expect(res.body.data.teamId).toBeNull();
    expect(await list(owner, `/api/teams/${second.id}/chats`)).toEqual([]);
    await t.http.get(`/api/chats/${chat.id}`).set(member.auth).expect(404);
  });

  it('lets a team ADMIN unshare a chat that is not theirs; the owner keeps it', async () => {
    const [owner, admin, author] = await Promise.all([newUser(t), newUser(t), newUser(t)]);
    const team = await newTeam(t, owner, {
      members: [
        [admin, 'ADMIN'],
        [author, 'MEMBER'],
      ],
    });
    const chat = await newChat(t, author, { title: 'mine', teamId: team.id });
    await share(admin, chat.id, null).expect(200);
    await t.http.get(`/api/chats/${chat.id}`).set(admin.auth).expect(404);
    const got = await t.http.get(`/api/chats/${chat.id}`).set(author.auth).expect(200);
    expect(got.body.data).toEqual(
      expect.objectContaining({ userId: author.user.id, teamId: null }),
    );
  });

  it('GET /api/chats lists own chats only; ?scope=all adds team chats marked with teamId', async () => {
    const { owner, member, team } = await setup();
    const theirs = await newChat(t, owner, { title: 'shared by owner', teamId: team.id });
    await newChat(t, owner, { title: 'private to owner' });
    await newChat(t, await newUser(t), { title: 'a stranger' });
    const mine = await newChat(t, member, { title: 'mine', messages: ['m'] });
    await age(theirs.id, 1);
    expect(titles(await list(member, '/api/chats'))).toEqual(['mine']);
    expect(titles(await list(member, '/api/chats?scope=own'))).toEqual(['mine']);
    const all = await list(member, '/api/chats?scope=all');
    expect(all.map((c) => [c.id, c.teamId, c.userId])).toEqual([
      [mine.id, null, member.user.id],
      [theirs.id, team.id, owner.user.id],
    ]);
    expect(all[0].messages.map((m) => m.content)).toEqual(['m']);
    const res = await t.http.get('/api/chats?scope=team').set(member.auth);
    expect([res.status, res.body]).toEqual([400, fail('VALIDATION_FAILED')]);
    const loner = await newUser(t);
    expect(await list(loner, '/api/chats?scope=all')).toEqual([]);
  });

  it('paginates team chats and scope=all newest updatedAt first, without gaps', async () => {
    const { owner, member, team } = await setup();
    const made = [];
    for (let i = 0; i < 5; i++) {
      made.push(await newChat(t, i % 2 ? member : owner, { title: `c${i}`, teamId: team.id }));
      await age(made[i].id, 10 - i);
    }
    for (const path of [`/api/teams/${team.id}/chats`, '/api/chats?scope=all']) {
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const query: Record<string, unknown> = { limit: 2, ...(cursor ? { cursor } : {}) };
        const res: { body: { data: Row[]; nextCursor: string | null } } = await t.http
          .get(path)
          .query(query)
          .set(member.auth)
          .expect(200);
        seen.push(...titles(res.body.data));
        cursor = res.body.nextCursor;
      } while (cursor);
      expect(seen).toEqual(['c4', 'c3', 'c2', 'c1', 'c0']);
    }
    const bad = await t.http.get(`/api/teams/${team.id}/chats?cursor=nope`).set(member.auth);
    expect([bad.status, bad.body]).toEqual([400, fail('VALIDATION_FAILED')]);
  });

  it('ends access the moment a member is removed; the chats they shared stay shared', async () => {
    const { owner, member, team } = await setup();
    const ownerChat = await newChat(t, owner, { teamId: team.id });
    const memberChat = await newChat(t, member, { title: 'left behind', teamId: team.id });
    await t.http.get(`/api/chats/${ownerChat.id}`).set(member.auth).expect(200);
    await t.http
      .delete(`/api/teams/${team.id}/members/${member.user.id}`)
      .set(owner.auth)
      .expect(200);
    await t.http.get(`/api/chats/${ownerChat.id}`).set(member.auth).expect(404);
    await t.http.get(`/api/teams/${team.id}/chats`).set(member.auth).expect(404);
    expect(titles(await list(member, '/api/chats?scope=all'))).toEqual(['left behind']);
    await t.http.get(`/api/chats/${memberChat.id}`).set(owner.auth).expect(200);
    await share(member, memberChat.id, null).expect(200); // the author can still unshare
  });
});
