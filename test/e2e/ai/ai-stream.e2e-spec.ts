import { startProviders, type Providers } from '../../support/providers';
import { ledgerOf, newChat, newUser } from '../../support/factories';
import { parseSse } from '../../support/sse';
import { createTestApp, type TestApp } from '../../support/test-app';
import { streamThenLeave } from '../../support/walk-away';
import { waitFor } from '../../support/wait';

describe('AI stream: text and SSE, settled like generate', () => {
  let t: TestApp;
  let p: Providers;
  const ask = (modelId: string) => ({ modelId, messages: [{ role: 'user', content: 'Tell me' }] });

  beforeAll(async () => {
    p = await startProviders();
    t = await createTestApp({ ...p.env, AI_SSE_PING_MS: '50' });
  });
  afterAll(async () => {
    await t.close();
    await p.stop();
  });
  beforeEach(() => p.reset());

  it.each([
    ['gpt-4o', 'openai', { usage: { prompt_tokens: 600, completion_tokens: 300 } }, 9],
    [
      'claude-haiku-4-5',
      'anthropic',
      { usage: { input_tokens: 1000, output_tokens: 400 }, outputTokenSteps: [100, 250, 400] },
      7,
    ],
    [
      'gemini-2.5-flash',
      'gemini',
      { usage: { promptTokenCount: 100, candidatesTokenCount: 1300 } },
      4,
    ],
  ] as const)(
    '%s as text/plain: incremental text, same cost as generate, chat saved',
    async (model, server, reply, price) => {
      const u = await newUser(t);
      p[server].reply = { text: 'One two three four', chunks: 4, ...reply } as never;
      const res = await t.http.post('/api/ai/stream').set(u.auth).send(ask(model)).expect(200);
      expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
      expect(res.headers['cache-control']).toBe('no-cache, no-transform');
      expect(res.headers['x-accel-buffering']).toBe('no');
      expect(res.headers['content-encoding']).toBeUndefined();
      expect(res.headers['server-timing']).toMatch(/app;dur=/);
      expect(res.text).toBe('One two three four');
      const ledger = await ledgerOf(t, u.user.id);
      expect(ledger).toEqual({ credits: 100 - price, ledgerSum: 100 - price, entries: 2 });

      const chatId = res.headers['x-chat-id'];
      const chat = (await t.http.get(`/api/chats/${chatId}`).set(u.auth).expect(200)).body.data;
      expect(chat.messages.map((m: { role: string }) => m.role)).toEqual(['USER', 'ASSISTANT']);
      expect(chat.messages[1].content).toBe('One two three four');

      // The same usage through generate costs the same.
      const same = await t.http.post('/api/ai/generate').set(u.auth).send(ask(model)).expect(200);
      expect(same.body.cost).toBe(price);
    },
  );

  it('speaks SSE on request: ping first, delta events, one done event', async () => {
    const u = await newUser(t);
    p.openai.reply = {
      text: 'a b c',
      chunks: 3,
      chunkDelayMs: 120,
      usage: { prompt_tokens: 5, completion_tokens: 3 },
    };
    const res = await t.http
      .post('/api/ai/stream')
      .set(u.auth)
      .set('Accept', 'text/event-stream')
      .send(ask('gpt-4o'))
      .expect(200);
    expect(res.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    expect(res.text.startsWith(': ping\n\n')).toBe(true);
    const { events, comments } = parseSse(res.text);
    // The 120 ms before the first chunk leaves room for more than one 50 ms heartbeat.
    expect(comments.length).toBeGreaterThanOrEqual(2);
    const deltas = events.filter(([e]) => e === 'delta').map(([, d]) => d.text);
    expect(deltas.join('')).toBe('a b c');
    expect(deltas.length).toBe(3);
    const done = events.filter(([e]) => e === 'done');
    expect(done).toEqual([
      [
        'done',
        {
          modelId: 'gpt-4o',
          usage: { promptTokens: 5, completionTokens: 3 },
          cost: 1,
          chatId: res.headers['x-chat-id'],
        },
      ],
    ]);
    expect(events[events.length - 1][0]).toBe('done');
  });

  it('answers checks and upstream refusals before the first byte with status and JSON', async () => {
    const u = await newUser(t);
    await t.http.post('/api/ai/stream').send(ask('gpt-4o')).expect(401);
    const unknown = await t.http.post('/api/ai/stream').set(u.auth).send(ask('nope')).expect(400);
    expect(unknown.body.code).toBe('UNKNOWN_MODEL');
    p.openai.reply = { status: 429, retryAfter: '0' };
    const limited = await t.http.post('/api/ai/stream').set(u.auth).send(ask('gpt-4o')).expect(429);
    expect(limited.body).toEqual({ error: expect.any(String), code: 'RATE_LIMIT' });
    expect(p.openai.requests).toHaveLength(3);
    expect(await ledgerOf(t, u.user.id)).toEqual({ credits: 100, ledgerSum: 100, entries: 1 });
  });

  it('sends an SSE error event when the provider fails after the stream opened', async () => {
    const u = await newUser(t);
    p.gemini.reply = { status: 500 };
    const res = await t.http
      .post('/api/ai/stream')
      .set(u.auth)
      .set('Accept', 'text/event-stream')
      .send(ask('gemini-2.5-flash'))
      .expect(200);
    const { events } = parseSse(res.text);
    expect(events).toEqual([['error', { error: expect.any(String), code: 'SERVICE_UNAVAILABLE' }]]);
    expect(await ledgerOf(t, u.user.id)).toEqual({ credits: 100, ledgerSum: 100, entries: 1 });
  });

  it('a chat deleted while its reply streams: NOT_FOUND, nothing saved, the reply charged once, no hold', async () => {
    const u = await newUser(t);
    const chat = await newChat(t, u, { messages: ['hello'] });
    p.openai.reply = {
      text: 'a late reply',
      chunks: 3,
      chunkDelayMs: 100,
      usage: { prompt_tokens: 600, completion_tokens: 300 },
    };
    // `then` sends the request now; the chat is deleted while the reply streams.
    const answer = t.http
      .post('/api/ai/stream')
      .set(u.auth)
      .set('Accept', 'text/event-stream')
      .send({ ...ask('gpt-4o'), chatId: chat.id })
      .then((res) => res);
    expect(await waitFor(() => p.openai.requests.length === 1)).toBe(true);
    await t.http.delete(`/api/chats/${chat.id}`).set(u.auth).expect(200);
    const res = await answer;
    expect(res.status).toBe(200);
    const { events } = parseSse(res.text);
    expect(events.at(-1)).toEqual(['error', { error: expect.any(String), code: 'NOT_FOUND' }]);
    const [{ n }] = await t.db.query(
      'SELECT count(*)::int AS n FROM messages WHERE "chatId" = $1',
      [chat.id],
    );
    expect(n).toBe(0);
    // Charged for the reply it got (9 credits), once; the hold returned the rest.
    expect(await ledgerOf(t, u.user.id)).toEqual({ credits: 91, ledgerSum: 91, entries: 2 });
    const holds = await t.db.query('SELECT 1 FROM credit_holds WHERE "userId" = $1', [u.user.id]);
    expect(holds).toHaveLength(0);
  });

  it('translates the SSE error event like any HTTP error', async () => {
    const u = await newUser(t);
    p.gemini.reply = { status: 500 };
    const res = await t.http
      .post('/api/ai/stream')
      .set(u.auth)
      .set({ Accept: 'text/event-stream', 'x-locale': 'zh' })
      .send(ask('gemini-2.5-flash'))
      .expect(200);
    expect(parseSse(res.text).events).toEqual([
      ['error', { error: '所需的服务暂时不可用，请稍后再试。', code: 'SERVICE_UNAVAILABLE' }],
    ]);
  });

  it('charges a stream the provider cut mid-way for what was produced, and saves the partial reply', async () => {
    const u = await newUser(t);
    p.openai.reply = { text: 'aaaa bbbb cccc dddd', chunks: 4, cutAfterChunks: 2 };
    const res = await t.http.post('/api/ai/stream').set(u.auth).send(ask('gpt-4o'));
    expect(res.status).toBe(200);
    const [entry] = await t.db.query(
      `SELECT amount, description FROM credit_transactions WHERE "userId" = $1 AND type = 'CONSUMPTION'`,
      [u.user.id],
    );
    expect(entry.description).toMatch(/estimated/);
    expect(entry.amount).toBeLessThan(0);
    const ledger = await ledgerOf(t, u.user.id);
    expect(ledger.credits).toBe(ledger.ledgerSum);
  });

  it('aborts a stalled upstream once the drain after the client left runs out, charges once and saves the partial reply', async () => {
    const u = await newUser(t);
    // The upstream goes silent after two words: only the service's abort, at the end of the
    // drain (ABORT_DRAIN_MS, 200 ms in the tests' environment), ends its request.
    p.anthropic.reply = { text: 'one two three four five six', chunks: 6, stallAfterChunks: 2 };
    // After the first words arrive, walk away.
    await streamThenLeave(t.app, '/api/ai/stream', u.auth, ask('claude-haiku-4-5'));
    expect(await waitFor(() => p.anthropic.requests[0]?.aborted === true)).toBe(true);

    const settled = async () =>
      Number((await t.db.query('SELECT count(*) FROM credit_holds'))[0].count) === 0;
    expect(await waitFor(settled)).toBe(true);
    const entries = await t.db.query(
      `SELECT amount, description FROM credit_transactions WHERE "userId" = $1 AND type = 'CONSUMPTION'`,
      [u.user.id],
    );
    expect(entries).toHaveLength(1);
    expect(entries[0].amount).toBeLessThan(0);
    const ledger = await ledgerOf(t, u.user.id);
    expect(ledger.credits).toBe(ledger.ledgerSum);
    expect(Number((await t.db.query('SELECT count(*) FROM credit_holds'))[0].count)).toBe(0);
    const [saved] = await t.db.query(
      `SELECT m.content FROM messages m JOIN chats c ON c.id = m."chatId"
       WHERE c."userId" = $1 AND m.role = 'ASSISTANT'`,
      [u.user.id],
    );
    expect(saved.content.length).toBeGreaterThan(0);
    expect('one two three four five six'.startsWith(saved.content)).toBe(true);
    expect(saved.content).not.toBe('one two three four five six');
  });
});
