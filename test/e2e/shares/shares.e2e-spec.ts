import { createHash } from 'node:crypto';
import { ChatsService } from '../../../src/chats/chats.service';
import { newChat, newTeam, newUser } from '../../support/factories';
import { createTestApp, type TestApp } from '../../support/test-app';

const fail = (code: string) => ({ success: false, error: expect.any(String), code });
const missing = '00000000-0000-4000-8000-000000000000';

describe('Share links', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp({ APP_BASE_URL: 'https://chat.example.com' });
  });
  afterAll(() => t.close());

  it('shares a chat; the link opens signed out with a snapshot and no user data', async () => {
    const u = await newUser(t, { name: 'Ada Lovelace' });
    const chat = await newChat(t, u, {
      title: 'Lisbon',
      messages: ['Where to eat?', 'Try Alfama.'],
    });
    const res = await t.http.post(`/api/chats/${chat.id}/share`).set(u.auth).expect(201);
    const { token, url } = res.body.data as { token: string; url: string };
    expect(Buffer.from(token, 'base64url')).toHaveLength(32);
    expect(url).toBe(`https://chat.example.com/share/${token}`);
    // Only the hash is stored.
    const [row] = await t.db.query('SELECT "tokenHash" FROM chat_shares WHERE "chatId" = $1', [
      chat.id,
    ]);
    expect(row.tokenHash).toBe(createHash('sha256').update(token).digest('hex'));
    const open = await t.http.get(`/api/share/${token}`).expect(200);
    expect(open.body).toEqual({
      success: true,
      data: {
        title: 'Lisbon',
        sharedAt: expect.any(String),
        messages: [
          { role: 'USER', content: 'Where to eat?', createdAt: expect.any(String) },
          { role: 'ASSISTANT', content: 'Try Alfama.', createdAt: expect.any(String) },
        ],
      },
    });
    const text = JSON.stringify(open.body);
    for (const secret of [u.user.id, u.user.email, 'Ada Lovelace', chat.id])
      expect(text).not.toContain(secret);
    // The page route is public.
    const page = await t.http
      .get('/api/route-access')
      .query({ path: `/en/share/${token}` })
      .expect(200);
    expect(page.body).toEqual({ action: 'allow' });
    const status = await t.http.get(`/api/chats/${chat.id}/share`).set(u.auth).expect(200);
    expect(status.body).toEqual({
      success: true,
      data: { shared: true, createdAt: expect.any(String) },
    });
  });

  it('keeps the snapshot after new messages and renames, until the link is refreshed', async () => {
    const u = await newUser(t);
    const chat = await newChat(t, u, { title: 'Before', messages: ['one'] });
    const first = (await t.http.post(`/api/chats/${chat.id}/share`).set(u.auth).expect(201)).body
      .data;
    const chats = t.app.get(ChatsService);
    await chats.addMessage(chat.id, u.user.id, 'USER', 'two');
    await t.http.patch(`/api/chats/${chat.id}`).set(u.auth).send({ title: 'After' }).expect(200);
    const open = await t.http.get(`/api/share/${first.token}`).expect(200);
    expect([
      open.body.data.title,
      open.body.data.messages.map((m: { content: string }) => m.content),
    ]).toEqual(['Before', ['one']]);
    // Refreshing: a new token with the current messages; the old token stops working.
    const second = (await t.http.post(`/api/chats/${chat.id}/share`).set(u.auth).expect(201)).body
      .data;
    expect(second.token).not.toBe(first.token);
    const fresh = await t.http.get(`/api/share/${second.token}`).expect(200);
    expect([
      fresh.body.data.title,
      fresh.body.data.messages.map((m: { content: string }) => m.content),
    ]).toEqual(['After', ['one', 'two']]);
    const old = await t.http.get(`/api/share/${first.token}`);
    expect([old.status, old.body]).toEqual([404, fail('NOT_FOUND')]);
  });

  it('revokes: the token answers 404, the status says not shared, revoking again is 404', async () => {
    const u = await newUser(t);
    const chat = await newChat(t, u, { messages: ['hi'] });
    const { token } = (await t.http.post(`/api/chats/${chat.id}/share`).set(u.auth).expect(201))
      .body.data;
    await t.http.delete(`/api/chats/${chat.id}/share`).set(u.auth).expect(200, { success: true });
    const gone = await t.http.get(`/api/share/${token}`);
    expect([gone.status, gone.body]).toEqual([404, fail('NOT_FOUND')]);
    const status = await t.http.get(`/api/chats/${chat.id}/share`).set(u.auth).expect(200);
    expect(status.body.data).toEqual({ shared: false, createdAt: null });
    const again = await t.http.delete(`/api/chats/${chat.id}/share`).set(u.auth);
    expect([again.status, again.body]).toEqual([404, fail('NOT_FOUND')]);
  });

  it('deleting the chat removes its link', async () => {
    const u = await newUser(t);
    const chat = await newChat(t, u, { messages: ['hi'] });
    const { token } = (await t.http.post(`/api/chats/${chat.id}/share`).set(u.auth).expect(201))
      .body.data;
    await t.http.delete(`/api/chats/${chat.id}`).set(u.auth).expect(200);
    expect((await t.http.get(`/api/share/${token}`)).status).toBe(404);
  });

  it('answers 404 for an unknown token of any shape', async () => {
    for (const token of ['nope', 'A'.repeat(43), 'x'.repeat(300)]) {
      const res = await t.http.get(`/api/share/${token}`);
      expect([res.status, res.body]).toEqual([404, fail('NOT_FOUND')]);
    }
  });

  it("answers 404 for another user's chat and 403 for a team member who is not the owner", async () => {
    const [owner, member, outsider] = await Promise.all([newUser(t), newUser(t), newUser(t)]);
    const team = await newTeam(t, owner, { members: [[member, 'ADMIN']] });
    const chat = await newChat(t, owner, { teamId: team.id, messages: ['hi'] });
    for (const method of ['post', 'get', 'delete'] as const) {
      const other = await t.http[method](`/api/chats/${chat.id}/share`).set(outsider.auth);
      expect([other.status, other.body]).toEqual([404, fail('NOT_FOUND')]);
      const byMember = await t.http[method](`/api/chats/${chat.id}/share`).set(member.auth);
      expect([byMember.status, byMember.body]).toEqual([403, fail('FORBIDDEN')]);
      const absent = await t.http[method](`/api/chats/${missing}/share`).set(owner.auth);
      expect([absent.status, absent.body]).toEqual([404, fail('NOT_FOUND')]);
    }
    const [{ n }] = await t.db.query(
      'SELECT count(*)::int AS n FROM chat_shares WHERE "chatId" = $1',
      [chat.id],
    );
    expect(n).toBe(0);
    const bad = await t.http.post('/api/chats/not-a-uuid/share').set(owner.auth);
    expect([bad.status, bad.body]).toEqual([400, fail('VALIDATION_FAILED')]);
  });

  it('answers 401 for the owner routes without a session', async () => {
    const res = await t.http.post(`/api/chats/${missing}/share`);
    expect([res.status, res.body]).toEqual([401, fail('UNAUTHORIZED')]);
  });
});
