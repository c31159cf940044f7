import { newChat, newTeam, newUser, type TestUser } from '../../support/factories';
import { createTestApp, type TestApp } from '../../support/test-app';

interface TagRow {
  id: string;
  name: string;
  color: string | null;
}
interface ChatRow {
  id: string;
  title: string;
  tags: TagRow[];
}

const fail = (code: string) => ({ success: false, error: expect.any(String), code });
const missing = '00000000-0000-4000-8000-000000000000';

describe('Chat tags', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  const createTag = async (u: TestUser, name: string, color?: string) =>
    (await t.http.post('/api/tags').set(u.auth).send({ name, color }).expect(201)).body
      .data as TagRow;
  const setTags = (u: TestUser, chatId: string, tagIds: string[]) =>
    t.http.put(`/api/chats/${chatId}/tags`).set(u.auth).send({ tagIds });
  const chats = async (u: TestUser, query = '') =>
    (await t.http.get(`/api/chats${query}`).set(u.auth).expect(200)).body.data as ChatRow[];

  it('creates, lists by name, renames, recolours and deletes my tags (envelope B)', async () => {
    const u = await newUser(t);
    const res = await t.http
      .post('/api/tags')
      .set(u.auth)
      .send({ name: ' Work ', color: '#A1B2C3' })
      .expect(201);
    expect(res.body).toEqual({
      success: true,
      data: {
        id: expect.any(String),
        name: 'Work',
        color: '#a1b2c3',
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
      },
    });
    const work = res.body.data as TagRow;
    await createTag(u, 'archive');
    const list = await t.http.get('/api/tags').set(u.auth).expect(200);
    expect(list.body.data.map((x: TagRow) => [x.name, x.color])).toEqual([
      ['archive', null],
      ['Work', '#a1b2c3'],
    ]);
    const patched = await t.http
      .patch(`/api/tags/${work.id}`)
      .set(u.auth)
      .send({ name: 'Job', color: null })
      .expect(200);
    expect(patched.body.data).toEqual(expect.objectContaining({ name: 'Job', color: null }));
    await t.http.delete(`/api/tags/${work.id}`).set(u.auth).expect(200, { success: true });
    const after = await t.http.get('/api/tags').set(u.auth).expect(200);
    expect(after.body.data.map((x: TagRow) => x.name)).toEqual(['archive']);
  });

  it.each([
    ['missing name', {}],
    ['empty name', { name: '  ' }],
    ['name of 41 characters', { name: 'x'.repeat(41) }],
    ['bad colour', { name: 'a', color: 'red' }],
    ['short colour', { name: 'a', color: '#fff' }],
    ['unknown field', { name: 'a', userId: missing }],
  ])('refuses %s with 400 VALIDATION_FAILED', async (_label, body) => {
    const u = await newUser(t);
    const res = await t.http.post('/api/tags').set(u.auth).send(body);
    expect([res.status, res.body]).toEqual([400, fail('VALIDATION_FAILED')]);
  });

  it('keeps names unique per user case-insensitively (409), not across users', async () => {
    const [a, b] = await Promise.all([newUser(t), newUser(t)]);
    const travel = await createTag(a, 'Travel');
    const dup = await t.http.post('/api/tags').set(a.auth).send({ name: 'TRAVEL' });
    expect([dup.status, dup.body]).toEqual([409, fail('TAG_NAME_TAKEN')]);
    await createTag(b, 'travel');
    const other = await createTag(a, 'Food');
    const rename = await t.http.patch(`/api/tags/${other.id}`).set(a.auth).send({ name: 'travel' });
    expect([rename.status, rename.body]).toEqual([409, fail('TAG_NAME_TAKEN')]);
    await t.http.patch(`/api/tags/${travel.id}`).set(a.auth).send({ name: 'travel' }).expect(200);
  });

  it('allows at most 100 tags per user, also under parallel creates (409 LIMIT_REACHED)', async () => {
    const u = await newUser(t);
    await t.db.query(
      `INSERT INTO tags ("userId", name) SELECT $1, 'tag ' || n FROM generate_series(1, 98) n`,
      [u.user.id],
    );
    const results = await Promise.all(
      ['x1', 'x2', 'x3', 'x4'].map((name) => t.http.post('/api/tags').set(u.auth).send({ name })),
    );
    expect(results.map((r) => r.status).sort()).toEqual([201, 201, 409, 409]);
    expect(results.find((r) => r.status === 409)!.body).toEqual(
      expect.objectContaining(fail('LIMIT_REACHED')),
    );
    const list = await t.http.get('/api/tags').set(u.auth).expect(200);
    expect(list.body.data).toHaveLength(100);
  });

  it('tags two chats and filters by one tag, or by several (all of them)', async () => {
    const u = await newUser(t);
    const [work, urgent] = [await createTag(u, 'work', '#ff0000'), await createTag(u, 'urgent')];
    const [c1, c2, c3] = [
      await newChat(t, u, { title: 'one' }),
      await newChat(t, u, { title: 'two' }),
      await newChat(t, u, { title: 'three' }),
    ];
    const put = await setTags(u, c1.id, [work.id, urgent.id]).expect(200);
    expect(put.body.data).toEqual(
      expect.objectContaining({
        id: c1.id,
        tags: [
          { id: urgent.id, name: 'urgent', color: null },
          { id: work.id, name: 'work', color: '#ff0000' },
        ],
      }),
    );
    await setTags(u, c2.id, [work.id, work.id]).expect(200);
    const byWork = await chats(u, `?tag=${work.id}`);
    expect(byWork.map((c) => c.title).sort()).toEqual(['one', 'two']);
    const both = await chats(u, `?tag=${work.id}&tag=${urgent.id}`);
    expect(both.map((c) => c.title)).toEqual(['one']);
    const all = await chats(u);
    expect(all.find((c) => c.id === c3.id)!.tags).toEqual([]);
    expect(all.find((c) => c.id === c2.id)!.tags.map((x) => x.name)).toEqual(['work']);
    // The read equals the list item, tags included.
    const read = await t.http.get(`/api/chats/${c1.id}`).set(u.auth).expect(200);
    expect(read.body.data).toEqual(all.find((c) => c.id === c1.id));
    // Replacing: an empty list removes my tags; deleting a tag removes it from its chats.
    await setTags(u, c1.id, []).expect(200);
    expect(await chats(u, `?tag=${urgent.id}`)).toEqual([]);
    await t.http.delete(`/api/tags/${work.id}`).set(u.auth).expect(200);
    expect((await chats(u)).every((c) => c.tags.length === 0)).toBe(true);
    const bad = await t.http.get('/api/chats?tag=nope').set(u.auth);
    expect([bad.status, bad.body]).toEqual([400, fail('VALIDATION_FAILED')]);
  });

  it('paginates a tag filter with the cursor', async () => {
    const u = await newUser(t);
    const tag = await createTag(u, 'many');
    for (let i = 0; i < 5; i++) {
      const c = await newChat(t, u, { title: `c${i}` });
      await setTags(u, c.id, [tag.id]).expect(200);
    }
    await newChat(t, u, { title: 'untagged' });
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const res: { body: { data: ChatRow[]; nextCursor: string | null } } = await t.http
        .get('/api/chats')
        .query({ tag: tag.id, limit: 2, ...(cursor ? { cursor } : {}) })
        .set(u.auth)
        .expect(200);
      seen.push(...res.body.data.map((c) => c.title));
      cursor = res.body.nextCursor;
    } while (cursor);
    expect(seen).toEqual(['c4', 'c3', 'c2', 'c1', 'c0']);
  });

  it("answers 404 for another user's tag or chat, and changes nothing", async () => {
    const [a, b] = await Promise.all([newUser(t), newUser(t)]);
    const tagA = await createTag(a, 'mine');
    const tagB = await createTag(b, 'theirs');
    const chatA = await newChat(t, a);
    const chatB = await newChat(t, b);
    for (const res of [
      await t.http.patch(`/api/tags/${tagA.id}`).set(b.auth).send({ name: 'x' }),
      await t.http.delete(`/api/tags/${tagA.id}`).set(b.auth),
      await t.http.patch(`/api/tags/${missing}`).set(a.auth).send({ name: 'x' }),
      await setTags(b, chatA.id, [tagB.id]),
      await setTags(a, chatA.id, [tagA.id, tagB.id]),
      await setTags(a, chatB.id, [tagA.id]),
    ])
      expect([res.status, res.body]).toEqual([404, fail('NOT_FOUND')]);
    expect((await chats(a))[0].tags).toEqual([]);
    // Filtering by another user's tag finds nothing, even on a chat b tagged.
    await setTags(b, chatB.id, [tagB.id]).expect(200);
    expect(await chats(a, `?tag=${tagB.id}&scope=all`)).toEqual([]);
    const list = await t.http.get('/api/tags').set(b.auth).expect(200);
    expect(list.body.data.map((x: TagRow) => x.name)).toEqual(['theirs']);
  });

  it('keeps tags private on a team-shared chat: each member sees only their own', async () => {
    const [owner, member] = await Promise.all([newUser(t), newUser(t)]);
    const team = await newTeam(t, owner, { members: [[member, 'MEMBER']] });
    const chat = await newChat(t, owner, { title: 'shared', teamId: team.id });
    const ownerTag = await createTag(owner, 'owner-only');
    const memberTag = await createTag(member, 'member-only');
    await setTags(owner, chat.id, [ownerTag.id]).expect(200);
    const put = await setTags(member, chat.id, [memberTag.id]).expect(200);
    expect(put.body.data.tags.map((x: TagRow) => x.name)).toEqual(['member-only']);
    const forOwner = await chats(owner);
    expect(forOwner[0].tags.map((x) => x.name)).toEqual(['owner-only']);
    const forMember = await chats(member, '?scope=all');
    expect(forMember[0].tags.map((x) => x.name)).toEqual(['member-only']);
    expect(JSON.stringify(forMember)).not.toContain('owner-only');
    const teamList = await t.http.get(`/api/teams/${team.id}/chats`).set(member.auth).expect(200);
    expect(teamList.body.data[0].tags.map((x: TagRow) => x.name)).toEqual(['member-only']);
    expect((await chats(member, `?scope=all&tag=${memberTag.id}`)).map((c) => c.id)).toEqual([
      chat.id,
    ]);
    // Replacing my tags leaves the owner's in place.
    await setTags(member, chat.id, []).expect(200);
    expect((await chats(owner))[0].tags.map((x) => x.name)).toEqual(['owner-only']);
    // Renaming and unsharing answer the caller's tags too.
    const renamed = await t.http
      .patch(`/api/chats/${chat.id}`)
      .set(owner.auth)
      .send({ title: 'renamed' })
      .expect(200);
    expect(renamed.body.data.tags.map((x: TagRow) => x.name)).toEqual(['owner-only']);
  });

  it('refuses a malformed tag list with 400', async () => {
    const u = await newUser(t);
    const chat = await newChat(t, u);
    for (const body of [{}, { tagIds: 'x' }, { tagIds: ['nope'] }]) {
      const res = await t.http.put(`/api/chats/${chat.id}/tags`).set(u.auth).send(body);
      expect([res.status, res.body]).toEqual([400, fail('VALIDATION_FAILED')]);
    }
  });

  it('answers 401 without a session', async () => {
    const res = await t.http.get('/api/tags');
    expect([res.status, res.body]).toEqual([401, fail('UNAUTHORIZED')]);
  });
});
