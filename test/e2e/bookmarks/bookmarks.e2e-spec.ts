import { newChat, newTeam, newUser, type TestUser } from '../../support/factories';
import { createTestApp, type TestApp } from '../../support/test-app';

interface BookmarkRow {
  id: string;
  note: string | null;
  createdAt: string;
  message: { id: string; role: string; excerpt: string; createdAt: string };
  chat: { id: string; title: string };
}

const fail = (code: string) => ({ success: false, error: expect.any(String), code });
const missing = '00000000-0000-4000-8000-000000000000';

describe('Message bookmarks', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  /** A chat of `u` with a question and a reply; returns the chat and its message ids. */
  async function chatWithReply(u: TestUser, reply = 'An answer', opts: { teamId?: string } = {}) {
    const chat = await newChat(t, u, { title: 'Lisbon', messages: ['A question', reply], ...opts });
    const res = await t.http.get(`/api/chats/${chat.id}/messages`).set(u.auth).expect(200);
    const [question, answer] = res.body.data as { id: string }[];
    return { chat, questionId: question.id, replyId: answer.id };
  }
  const bookmark = (u: TestUser, body: object) =>
    t.http.post('/api/bookmarks').set(u.auth).send(body);
  const list = async (u: TestUser) =>
    (await t.http.get('/api/bookmarks').set(u.auth).expect(200)).body.data as BookmarkRow[];

  it('bookmarks a reply and finds it in the list with an excerpt and the chat', async () => {
    const u = await newUser(t);
    const long = `${'é'.repeat(150)}${'x'.repeat(100)}`;
    const { chat, replyId } = await chatWithReply(u, long);
    const res = await bookmark(u, { messageId: replyId, note: ' hotels ' }).expect(201);
    const expected = {
      id: expect.any(String),
      note: 'hotels',
      createdAt: expect.any(String),
      message: {
        id: replyId,
        role: 'ASSISTANT',
        excerpt: long.slice(0, 200),
        createdAt: expect.any(String),
      },
      chat: { id: chat.id, title: 'Lisbon' },
    };
    expect(res.body).toEqual({ success: true, data: expected });
    expect(res.body.data.message.excerpt).toHaveLength(200);
    const page = await t.http.get('/api/bookmarks').set(u.auth).expect(200);
    expect(page.body).toEqual({ success: true, data: [res.body.data], nextCursor: null });
  });

  it('is idempotent: bookmarking again answers 200 and the same bookmark', async () => {
    const u = await newUser(t);
    const { replyId } = await chatWithReply(u);
    const first = await bookmark(u, { messageId: replyId, note: 'first' }).expect(201);
    const again = await bookmark(u, { messageId: replyId }).expect(200);
    expect(again.body.data).toEqual(first.body.data);
    const renote = await bookmark(u, { messageId: replyId, note: 'second' }).expect(200);
    expect(renote.body.data).toEqual({ ...first.body.data, note: 'second' });
    expect(await list(u)).toHaveLength(1);
  });

  it('lists newest first and paginates with the cursor', async () => {
    const u = await newUser(t);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const { replyId } = await chatWithReply(u, `reply ${i}`);
      ids.push((await bookmark(u, { messageId: replyId }).expect(201)).body.data.id);
    }
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const res: { body: { data: BookmarkRow[]; nextCursor: string | null } } = await t.http
        .get('/api/bookmarks')
        .query({ limit: 2, ...(cursor ? { cursor } : {}) })
        .set(u.auth)
        .expect(200);
      expect(res.body.data.length).toBeLessThanOrEqual(2);
      seen.push(...res.body.data.map((b) => b.id));
      cursor = res.body.nextCursor;
    } while (cursor);
    expect(seen).toEqual([...ids].reverse());
  });

  it('changes and clears the note, and deletes the bookmark', async () => {
    const u = await newUser(t);
    const { replyId } = await chatWithReply(u);
    const { id } = (await bookmark(u, { messageId: replyId }).expect(201)).body.data;
    const patched = await t.http
      .patch(`/api/bookmarks/${id}`)
      .set(u.auth)
      .send({ note: 'n' })
      .expect(200);
    expect(patched.body.data.note).toBe('n');
    const cleared = await t.http
      .patch(`/api/bookmarks/${id}`)
      .set(u.auth)
      .send({ note: null })
      .expect(200);
    expect(cleared.body.data.note).toBeNull();
    await t.http.delete(`/api/bookmarks/${id}`).set(u.auth).expect(200, { success: true });
    expect(await list(u)).toEqual([]);
    const again = await t.http.delete(`/api/bookmarks/${id}`).set(u.auth);
    expect([again.status, again.body]).toEqual([404, fail('NOT_FOUND')]);
  });

  it.each([
    ['missing messageId', {}],
    ['malformed messageId', { messageId: 'nope' }],
    ['note of 501 characters', { messageId: missing, note: 'x'.repeat(501) }],
    ['unknown field', { messageId: missing, chatId: missing }],
  ])('refuses %s with 400', async (_label, body) => {
    const u = await newUser(t);
    const res = await bookmark(u, body);
    expect([res.status, res.body]).toEqual([400, fail('VALIDATION_FAILED')]);
  });

  it('refuses a PATCH without a note with 400', async () => {
    const u = await newUser(t);
    const { replyId } = await chatWithReply(u);
    const { id } = (await bookmark(u, { messageId: replyId }).expect(201)).body.data;
    const res = await t.http.patch(`/api/bookmarks/${id}`).set(u.auth).send({});
    expect([res.status, res.body]).toEqual([400, fail('VALIDATION_FAILED')]);
  });

  it("answers 404 for another user's message or bookmark, and for an unknown message", async () => {
    const [a, b] = await Promise.all([newUser(t), newUser(t)]);
    const { replyId } = await chatWithReply(a);
    const { id } = (await bookmark(a, { messageId: replyId }).expect(201)).body.data;
    for (const res of [
      await bookmark(b, { messageId: replyId }),
      await bookmark(b, { messageId: missing }),
      await t.http.patch(`/api/bookmarks/${id}`).set(b.auth).send({ note: 'x' }),
      await t.http.delete(`/api/bookmarks/${id}`).set(b.auth),
    ])
      expect([res.status, res.body]).toEqual([404, fail('NOT_FOUND')]);
    expect(await list(b)).toEqual([]);
    expect(await list(a)).toHaveLength(1);
  });

  it('deleting the message or the chat removes its bookmarks', async () => {
    const u = await newUser(t);
    const one = await chatWithReply(u);
    const two = await chatWithReply(u);
    await bookmark(u, { messageId: one.replyId }).expect(201);
    await bookmark(u, { messageId: two.questionId }).expect(201);
    await t.db.query('DELETE FROM messages WHERE id = $1', [one.replyId]);
    await t.http.delete(`/api/chats/${two.chat.id}`).set(u.auth).expect(200);
    expect(await list(u)).toEqual([]);
    const [{ n }] = await t.db.query(
      'SELECT count(*)::int AS n FROM bookmarks WHERE "userId" = $1',
      [u.user.id],
    );
    expect(n).toBe(0);
  });

  it('a team-chat bookmark disappears while access is lost and comes back with it', async () => {
    const [owner, member] = await Promise.all([newUser(t), newUser(t)]);
    const team = await newTeam(t, owner, { members: [[member, 'MEMBER']] });
    const { chat, replyId } = await chatWithReply(owner, 'shared answer', { teamId: team.id });
    const { id } = (await bookmark(member, { messageId: replyId }).expect(201)).body.data;
    expect((await list(member)).map((b) => b.id)).toEqual([id]);
    // The owner unshares: the member's bookmark is hidden and answers 404.
    await t.http
      .put(`/api/chats/${chat.id}/team`)
      .set(owner.auth)
      .send({ teamId: null })
      .expect(200);
    expect(await list(member)).toEqual([]);
    const hidden = await t.http.patch(`/api/bookmarks/${id}`).set(member.auth).send({ note: 'x' });
    expect([hidden.status, hidden.body]).toEqual([404, fail('NOT_FOUND')]);
    // Shared again: it comes back, unchanged.
    await t.http
      .put(`/api/chats/${chat.id}/team`)
      .set(owner.auth)
      .send({ teamId: team.id })
      .expect(200);
    expect((await list(member)).map((b) => [b.id, b.note])).toEqual([[id, null]]);
    // Leaving the team hides it again.
    await t.http
      .delete(`/api/teams/${team.id}/members/${member.user.id}`)
      .set(member.auth)
      .expect(200);
    expect(await list(member)).toEqual([]);
    // The owner's own bookmarks are separate.
    expect(await list(owner)).toEqual([]);
  });

  it('answers 401 without a session', async () => {
    const res = await t.http.get('/api/bookmarks');
    expect([res.status, res.body]).toEqual([401, fail('UNAUTHORIZED')]);
  });
});
