import { ChatsService } from '../../../src/chats/chats.service';
import { newChat, newUser, type TestUser } from '../../support/factories';
import { createTestApp, type TestApp } from '../../support/test-app';

interface Row {
  id: string;
  title: string;
  userId: string;
  content: string;
  updatedAt: string;
  messages?: { content: string; role: string; chatId: string }[];
}

const fail = (code: string) => ({ success: false, error: expect.any(String), code });
const cursorOf = (at: unknown, id: string) =>
  Buffer.from(JSON.stringify([at, id])).toString('base64url');

describe('Chats: CRUD, pagination and owner-only access', () => {
  let t: TestApp;
  const missing = '00000000-0000-4000-8000-000000000000';

  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  /** Follows `nextCursor` from the first page to the last; returns every page's data. */
  async function walk(u: TestUser, path: string, limit: number): Promise<Row[][]> {
    const pages: Row[][] = [];
    let cursor: string | null = null;
    do {
      const query: Record<string, unknown> = { limit, ...(cursor ? { cursor } : {}) };
      const res: { body: { success: boolean; data: Row[]; nextCursor: string | null } } =
        await t.http.get(path).query(query).set(u.auth).expect(200);
      expect(Object.keys(res.body).sort()).toEqual(['data', 'nextCursor', 'success']);
      expect(res.body.success).toBe(true);
      pages.push(res.body.data);
      cursor = res.body.nextCursor;
      expect(pages.length).toBeLessThan(50);
    } while (cursor !== null);
    return pages;
  }

  const titles = async (u: TestUser) =>
    ((await t.http.get('/api/chats').set(u.auth).expect(200)).body.data as Row[]).map(
      (c) => c.title,
    );
  /** Sets a chat's updatedAt to `hours` in the past, so a later bump is strictly newer. */
  const age = (chatId: string, hours: number) =>
    t.db.query(`UPDATE chats SET "updatedAt" = now() - $2 * interval '1 hour' WHERE id = $1`, [
      chatId,
      hours,
    ]);
  const count = async (sql: string, id: string) =>
    Number((await t.db.query(`SELECT count(*) FROM ${sql}=$1`, [id]))[0].count);

  it('creates a chat owned by the session user: 201 envelope B, trimmed title', async () => {
    const u = await newUser(t);
    const res = await t.http.post('/api/chats').set(u.auth).send({ title: ' Trip ' }).expect(201);
    expect(res.body).toEqual({
      success: true,
      data: expect.objectContaining({ id: expect.any(String), title: 'Trip', userId: u.user.id }),
    });
    expect(res.body.data.messages).toEqual([]);
    const got = await t.http.get(`/api/chats/${res.body.data.id}`).set(u.auth).expect(200);
    expect(got.body.data).toEqual(expect.objectContaining({ id: res.body.data.id, title: 'Trip' }));
    const long = await t.http
      .post('/api/chats')
      .set(u.auth)
      .send({ title: 'y'.repeat(200) });
    expect([long.status, long.body.data.title.length]).toEqual([201, 200]);
  });

  it.each([
    ['missing title', {}],
    ['empty title', { title: '' }],
    ['blank title', { title: '   ' }],
    ['title of 201 characters', { title: 'x'.repeat(201) }],
    ['non-string title', { title: 42 }],
    ['unknown field', { title: 'ok', userId: missing }],
  ])('refuses %s with 400 and writes nothing', async (_name, body) => {
    const u = await newUser(t);
    const res = await t.http.post('/api/chats').set(u.auth).send(body).expect(400);
    expect(res.body).toEqual(fail('VALIDATION_FAILED'));
    expect(await count('chats WHERE "userId"', u.user.id)).toBe(0);
  });

  it('lists own chats newest updatedAt first, each with its messages oldest first', async () => {
    const u = await newUser(t);
    await newChat(t, await newUser(t), { title: 'not mine' });
    const first = await newChat(t, u, { title: 'first', messages: ['m1', 'm2', 'm3'] });
    await newChat(t, u, { title: 'second' });
    await age(first.id, 1);
    const res = await t.http.get('/api/chats').set(u.auth).expect(200);
    expect(res.body).toEqual({ success: true, data: expect.any(Array), nextCursor: null });
    const [second, withMessages] = res.body.data as Row[];
    expect([second.title, withMessages.title]).toEqual(['second', 'first']);
    expect(second.messages).toEqual([]);
    expect(withMessages.messages!.map((m) => [m.content, m.role, m.chatId])).toEqual([
      ['m1', 'USER', first.id],
      ['m2', 'ASSISTANT', first.id],
      ['m3', 'USER', first.id],
    ]);
  });

  it('bounds the messages of chat reads: the latest ?messages= (default 20, 0 none, at most 100), oldest first, with messageCount and hasMoreMessages', async () => {
    const u = await newUser(t);
    const texts = Array.from({ length: 25 }, (_, i) => `message ${i + 1}`);
    const chat = await newChat(t, u, { title: 'long', messages: texts });
    const short = await newChat(t, u, { title: 'short', messages: ['only one'] });
    const contents = (c: { messages: { content: string }[] }) => c.messages.map((m) => m.content);

    const byDefault = (await t.http.get(`/api/chats/${chat.id}`).set(u.auth).expect(200)).body.data;
    expect(contents(byDefault)).toEqual(texts.slice(5));
    expect(byDefault).toEqual(expect.objectContaining({ messageCount: 25, hasMoreMessages: true }));

    const three = (await t.http.get(`/api/chats/${chat.id}?messages=3`).set(u.auth).expect(200))
      .body.data;
    expect(contents(three)).toEqual(['message 23', 'message 24', 'message 25']);
    const none = (await t.http.get(`/api/chats/${chat.id}?messages=0`).set(u.auth).expect(200)).body
      .data;
    expect(none).toEqual(
      expect.objectContaining({ messages: [], messageCount: 25, hasMoreMessages: true }),
    );

    const list = (await t.http.get('/api/chats?messages=2').set(u.auth).expect(200)).body.data;
    const byId = Object.fromEntries(list.map((c: { id: string }) => [c.id, c]));
    expect(contents(byId[chat.id])).toEqual(['message 24', 'message 25']);
    expect(byId[short.id]).toEqual(
      expect.objectContaining({ messageCount: 1, hasMoreMessages: false }),
    );
    expect(contents(byId[short.id])).toEqual(['only one']);

    for (const bad of ['-1', '101', 'x', '1.5']) {
      const res = await t.http.get(`/api/chats?messages=${bad}`).set(u.auth).expect(400);
      expect(res.body.code).toBe('VALIDATION_FAILED');
    }
    // The rest of the history, through the paginated messages route.
    const older = await t.http
      .get(`/api/chats/${chat.id}/messages?limit=5`)
      .set(u.auth)
      .expect(200);
    expect(older.body.data).toHaveLength(5);
  });

  it('lists each chat exactly as GET /api/chats/:id shows it (fields, ISO times, escaping)', async () => {
    const u = await newUser(t);
    const tricky = [
      'quote " backslash \\ newline\n tab\t',
      'emoji 🦊 and 中文',
      '</script>{"a":1}',
    ];
    const chat = await newChat(t, u, { title: 'tricky "title" 🦊', messages: tricky });
    await newChat(t, u, { title: 'empty' });
    const list = (await t.http.get('/api/chats').set(u.auth).expect(200)).body.data as Row[];
    expect(list).toHaveLength(2);
    for (const row of list) {
      const one = (await t.http.get(`/api/chats/${row.id}`).set(u.auth).expect(200)).body.data;
      expect(row).toStrictEqual(one);
      expect(Object.keys(row).sort()).toEqual(
        [
          'createdAt',
          'hasMoreMessages',
          'id',
          'messageCount',
          'messages',
          'settings',
          'tags',
          'teamId',
          'title',
          'updatedAt',
          'userId',
        ].sort(),
      );
      expect(new Date(row.updatedAt).toISOString()).toBe(row.updatedAt);
    }
    const listed = list.find((c) => c.id === chat.id)!;
    expect(listed.messages!.map((m) => m.content)).toEqual(tricky);
    expect(listed.messages!.every((m) => Object.keys(m).length === 6)).toBe(true);
  });

  it('walks 7 chats with limit=3 in order, without duplicates or gaps', async () => {
    const u = await newUser(t);
    const made = [];
    for (let i = 0; i < 7; i++) made.push(await newChat(t, u, { title: `c${i}` }));
    // Three chats share one updatedAt, so the id tie-breaker is exercised across a page boundary.
    await t.db.query(`UPDATE chats SET "updatedAt" = '2030-01-01T00:00:00Z' WHERE id = ANY($1)`, [
      [made[1].id, made[2].id, made[5].id],
    ]);
    const pages = await walk(u, '/api/chats', 3);
    expect(pages.map((p) => p.length)).toEqual([3, 3, 1]);
    const all = pages.flat();
    expect(new Set(all.map((c) => c.id)).size).toBe(7);
    expect(all.map((c) => c.id).sort()).toEqual(made.map((c) => c.id).sort());
    for (let i = 1; i < all.length; i++) {
      const [a, b] = [all[i - 1], all[i]];
      expect(a.updatedAt === b.updatedAt ? a.id > b.id : a.updatedAt > b.updatedAt).toBe(true);
    }
  });

  it('defaults to 50 per page and clamps larger limits to 100', async () => {
    const u = await newUser(t);
    await t.db.query(
      `INSERT INTO chats (title, "userId") SELECT 'bulk ' || g, $1 FROM generate_series(1, 105) g`,
      [u.user.id],
    );
    const def = await t.http.get('/api/chats').set(u.auth).expect(200);
    expect([def.body.data.length, typeof def.body.nextCursor]).toEqual([50, 'string']);
    const big = await t.http.get('/api/chats?limit=1000').set(u.auth).expect(200);
    expect(big.body.data).toHaveLength(100);
    const query = { limit: 1000, cursor: big.body.nextCursor };
    const rest = await t.http.get('/api/chats').query(query).set(u.auth).expect(200);
    expect([rest.body.data.length, rest.body.nextCursor]).toEqual([5, null]);
  });

  it.each([
    ['limit=0', { limit: 0 }],
    ['limit=-1', { limit: -1 }],
    ['limit=abc', { limit: 'abc' }],
    ['limit=1.5', { limit: 1.5 }],
    ['an unknown query field', { sort: 'title' }],
    ['a garbage cursor', { cursor: 'not-a-cursor' }],
    ['a cursor with a bad date', { cursor: cursorOf('nope', missing) }],
    ['a cursor with a uuid-shaped non-uuid', { cursor: cursorOf(new Date(), '-'.repeat(36)) }],
    ['a cursor with an out-of-range date', { cursor: cursorOf('-271821-04-20T00:00Z', missing) }],
  ])('answers 400 for %s on both lists', async (_name, query) => {
    const u = await newUser(t);
    const chat = await newChat(t, u, { messages: ['hi'] });
    for (const path of ['/api/chats', `/api/chats/${chat.id}/messages`]) {
      const res = await t.http.get(path).query(query).set(u.auth);
      expect({ path, status: res.status, body: res.body }).toEqual({
        path,
        status: 400,
        body: fail('VALIDATION_FAILED'),
      });
    }
  });

  it('paginates messages oldest first, with ties broken by insertion order', async () => {
    const u = await newUser(t);
    const chat = await newChat(t, u, { messages: ['a', 'b'] });
    await t.db.query(
      `INSERT INTO messages ("chatId", "userId", role, content, "createdAt")
       SELECT $1, $2, 'USER', 'tie ' || g, '2099-01-01Z' FROM generate_series(1, 5) g ORDER BY g`,
      [chat.id, u.user.id],
    );
    const pages = await walk(u, `/api/chats/${chat.id}/messages`, 2);
    expect(pages.map((p) => p.length)).toEqual([2, 2, 2, 1]);
    expect(pages.flat().map((m) => m.content)).toEqual(
      ['a', 'b'].concat([1, 2, 3, 4, 5].map((i) => `tie ${i}`)),
    );
  });

  it('renames a chat, bumps updatedAt and moves it to the top', async () => {
    const u = await newUser(t);
    const old = await newChat(t, u, { title: 'old' });
    const newer = await newChat(t, u, { title: 'new' });
    await age(old.id, 2);
    await age(newer.id, 1);
    expect(await titles(u)).toEqual(['new', 'old']);
    const before = (await t.http.get(`/api/chats/${newer.id}`).set(u.auth)).body.data as Row;
    const res = await t.http
      .patch(`/api/chats/${old.id}`)
      .set(u.auth)
      .send({ title: 'renamed' })
      .expect(200);
    expect(res.body).toEqual({
      success: true,
      data: expect.objectContaining({ id: old.id, title: 'renamed', userId: u.user.id }),
    });
    expect(res.body.data.updatedAt > before.updatedAt).toBe(true);
    expect(await titles(u)).toEqual(['renamed', 'new']);
  });

  it('refuses an invalid rename with 400 and keeps the chat', async () => {
    const u = await newUser(t);
    const chat = await newChat(t, u, { title: 'keep' });
    const bodies = [{}, { title: '' }, { title: 'z'.repeat(201) }, { title: 'x', userId: missing }];
    for (const body of bodies) {
      const res = await t.http.patch(`/api/chats/${chat.id}`).set(u.auth).send(body).expect(400);
      expect(res.body).toEqual(fail('VALIDATION_FAILED'));
    }
    const [row] = await t.db.query('SELECT title, "userId" FROM chats WHERE id = $1', [chat.id]);
    expect(row).toEqual({ title: 'keep', userId: u.user.id });
  });

  it('adding a message bumps updatedAt and moves the chat to the top', async () => {
    const u = await newUser(t);
    const a = await newChat(t, u, { title: 'a' });
    const b = await newChat(t, u, { title: 'b' });
    await age(a.id, 2);
    await age(b.id, 1);
    expect(await titles(u)).toEqual(['b', 'a']);
    await t.app.get(ChatsService).addMessage(a.id, u.user.id, 'USER', 'text');
    const res = await t.http.get('/api/chats').set(u.auth).expect(200);
    expect(res.body.data.map((c: Row) => c.title)).toEqual(['a', 'b']);
    expect(res.body.data[0].messages.map((m: Row) => m.content)).toEqual(['text']);
  });

  it('deletes a chat with its messages: 200 {success:true}, then 404', async () => {
    const u = await newUser(t);
    const chat = await newChat(t, u, { messages: ['one', 'two', 'three'] });
    const keep = await newChat(t, u, { messages: ['stays'] });
    expect(await count('messages WHERE "chatId"', chat.id)).toBe(3);
    const res = await t.http.delete(`/api/chats/${chat.id}`).set(u.auth).expect(200);
    expect(res.body).toEqual({ success: true });
    expect(await count('messages WHERE "chatId"', chat.id)).toBe(0);
    expect(await count('messages WHERE "chatId"', keep.id)).toBe(1);
    await t.http.get(`/api/chats/${chat.id}`).set(u.auth).expect(404);
    await t.http.delete(`/api/chats/${chat.id}`).set(u.auth).expect(404);
    expect(await titles(u)).toEqual(['A chat']);
  });

  it('answers 404 NOT_FOUND for an absent chat and 400 for a malformed id', async () => {
    const u = await newUser(t);
    const res = await t.http.get(`/api/chats/${missing}`).set(u.auth).expect(404);
    expect(res.body).toEqual(fail('NOT_FOUND'));
    await t.http.get(`/api/chats/${missing}/messages`).set(u.auth).expect(404);
    await t.http.get('/api/chats/not-a-uuid').set(u.auth).expect(400);
    await t.http.get('/api/chats/not-a-uuid/messages').set(u.auth).expect(400);
  });

  it('BOLA: another user cannot read, rename, delete or list messages of a chat', async () => {
    const a = await newUser(t);
    const b = await newUser(t);
    await newChat(t, b, { title: "b's own" });
    const chat = await newChat(t, a, { title: 'private', messages: ['secret'] });
    const [before] = await t.db.query('SELECT * FROM chats WHERE id = $1', [chat.id]);
    const attempts = [
      () => t.http.get(`/api/chats/${chat.id}`).set(b.auth),
      () => t.http.patch(`/api/chats/${chat.id}`).set(b.auth).send({ title: 'pwned' }),
      () => t.http.delete(`/api/chats/${chat.id}`).set(b.auth),
      () => t.http.get(`/api/chats/${chat.id}/messages`).set(b.auth),
      () => t.http.put(`/api/chats/${chat.id}/team`).set(b.auth).send({ teamId: null }),
    ];
    for (const attempt of attempts) {
      const res = await attempt();
      expect([res.status, res.body]).toEqual([404, fail('NOT_FOUND')]);
      expect(JSON.stringify(res.body)).not.toMatch(/secret|private/);
    }
    const [after] = await t.db.query('SELECT * FROM chats WHERE id = $1', [chat.id]);
    expect(after).toEqual(before);
    expect(await count('messages WHERE "chatId"', chat.id)).toBe(1);
    expect(await titles(b)).toEqual(["b's own"]);
    expect(await titles(a)).toEqual(['private']);
  });

  it("BOLA: a cursor from another user's list still yields only the caller's chats", async () => {
    const a = await newUser(t);
    const b = await newUser(t);
    for (let i = 0; i < 3; i++) await newChat(t, a, { title: `a${i}` });
    const mine = await newChat(t, b, { title: 'b0' });
    await age(mine.id, 1);
    const first = await t.http.get('/api/chats?limit=1').set(a.auth).expect(200);
    const query = { cursor: first.body.nextCursor };
    const res = await t.http.get('/api/chats').query(query).set(b.auth).expect(200);
    expect(res.body.data.map((c: Row) => c.id)).toEqual([mine.id]);
  });

  describe('authentication', () => {
    it('answers 401 UNAUTHORIZED without a valid session, and changes nothing', async () => {
      const u = await newUser(t);
      const chat = await newChat(t, u, { title: 'mine' });
      const routes = [
        ['get', '/api/chats'],
        ['post', '/api/chats'],
        ['get', `/api/chats/${chat.id}`],
        ['patch', `/api/chats/${chat.id}`],
        ['delete', `/api/chats/${chat.id}`],
        ['get', `/api/chats/${chat.id}/messages`],
        ['put', `/api/chats/${chat.id}/team`],
      ] as const;
      const sessions = [{}, { Authorization: 'Bearer not.a.jwt' }, { Cookie: 'session_token=x' }];
      for (const [method, path] of routes) {
        for (const headers of sessions) {
          const res = await t.http[method](path).set(headers).send({ title: 'x' });
          expect({ method, path, status: res.status, body: res.body }).toEqual({
            method,
            path,
            status: 401,
            body: fail('UNAUTHORIZED'),
          });
        }
      }
      const rows = await t.db.query('SELECT title FROM chats WHERE "userId" = $1', [u.user.id]);
      expect(rows).toEqual([{ title: 'mine' }]);
    });

    it('accepts the session_token cookie as well as Bearer', async () => {
      const u = await newUser(t);
      const cookie = { Cookie: `session_token=${u.token}` };
      const created = await t.http.post('/api/chats').set(cookie).send({ title: 'c' }).expect(201);
      expect(created.body.data.userId).toBe(u.user.id);
      const list = await t.http.get('/api/chats').set(cookie).expect(200);
      expect(list.body.data.map((c: Row) => c.id)).toEqual([created.body.data.id]);
      await t.http.get(`/api/chats/${created.body.data.id}`).set(u.auth).expect(200);
    });
  });
});
