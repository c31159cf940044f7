import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { DefaultChatTransport, readUIMessageStream, type UIMessage, type UIMessageChunk } from 'ai';
import { startProviders, type Providers } from '../../support/providers';
import { ledgerOf, newUser, type TestUser } from '../../support/factories';
import { createTestApp, type TestApp } from '../../support/test-app';
import { waitFor } from '../../support/wait';

/** What the AI SDK's own client saw: the chunks in order, the response headers, the message. */
interface Turn {
  chunks: UIMessageChunk[];
  headers: Headers;
  message: UIMessage;
}

/**
 * POST /api/ai/chat driven by the real `ai` package: `DefaultChatTransport` sends the request
 * exactly as `useChat` does, and `readUIMessageStream` assembles the reply.
 */
describe('AI SDK chat transport (POST /api/ai/chat)', () => {
  let t: TestApp;
  let p: Providers;
  let api: string;

  beforeAll(async () => {
    p = await startProviders();
    t = await createTestApp({ ...p.env, AI_SSE_PING_MS: '50' });
    const server = t.app.getHttpServer();
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    api = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/ai/chat`;
  });
  afterAll(async () => {
    await t.close();
    await p.stop();
  });
  beforeEach(() => p.reset());

  const userText = (text: string): UIMessage => ({
    id: randomUUID(),
    role: 'user',
    parts: [{ type: 'text', text }],
  });

  /** One `sendMessage` of useChat: the transport's request, then the whole streamed reply. */
  async function send(
    u: TestUser,
    chatId: string,
    messages: UIMessage[],
    body: object = { modelId: 'gpt-4o' },
  ): Promise<Turn> {
    let headers = new Headers();
    const transport = new DefaultChatTransport<UIMessage>({
      api,
      headers: u.auth,
      body,
      fetch: async (input, init) => {
        const res = await fetch(input, init);
        headers = res.headers;
        return res;
      },
    });
    const stream = await transport.sendMessages({
      chatId,
      messages,
      trigger: 'submit-message',
      messageId: undefined,
      abortSignal: undefined,
    });
    const [forChunks, forMessage] = stream.tee();
    const chunks: UIMessageChunk[] = [];
    const collecting = (async () => {
      for await (const chunk of forChunks) chunks.push(chunk);
    })();
    let message: UIMessage | undefined;
    for await (const m of readUIMessageStream({ stream: forMessage })) message = m;
    await collecting;
    return { chunks, headers, message: message! };
  }

  const textOf = (m: UIMessage) =>
    m.parts.map((part) => (part.type === 'text' ? part.text : '')).join('');

  it('streams a metered reply: text and finish parts in order, balance down by the cost, chat saved', async () => {
    const u = await newUser(t);
    p.openai.reply = {
      text: 'One two three',
      chunks: 3,
      usage: { prompt_tokens: 600, completion_tokens: 300 },
    };
    const chatId = randomUUID();
    const turn = await send(u, chatId, [userText('Count to three')]);

    expect(turn.headers.get('x-vercel-ai-ui-message-stream')).toBe('v1');
    expect(turn.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(turn.headers.get('x-chat-id')).toBe(chatId);
    expect(turn.chunks.map((c) => c.type)).toEqual([
      'start',
      'start-step',
      'text-start',
      'text-delta',
      'text-delta',
      'text-delta',
      'text-end',
      'finish-step',
      'finish',
    ]);
    expect(textOf(turn.message)).toBe('One two three');
    const finish = turn.chunks.at(-1) as Extract<UIMessageChunk, { type: 'finish' }>;
    expect(finish.messageMetadata).toEqual({
      chatId,
      modelId: 'gpt-4o',
      usage: { promptTokens: 600, completionTokens: 300 },
      cost: 9, // ceil(900 tokens × gpt-4o's costPerToken × 1000)
    });

    // The balance drops by exactly the reported cost, in one CONSUMPTION entry.
    expect(await ledgerOf(t, u.user.id)).toEqual({ credits: 91, ledgerSum: 91, entries: 2 });
    // The request went upstream as one user message with the UI text.
    expect(p.openai.requests[0].body.messages).toEqual([
      { role: 'user', content: 'Count to three' },
    ]);
    // The chat is saved under the client's id.
    const chat = (await t.http.get(`/api/chats/${chatId}`).set(u.auth).expect(200)).body.data;
    expect(chat.title).toBe('Count to three');
    expect(
      chat.messages.map((m: { role: string; content: string }) => [m.role, m.content]),
    ).toEqual([
      ['USER', 'Count to three'],
      ['ASSISTANT', 'One two three'],
    ]);
  });

  it('continues the chat with the same id: only the new user message and the reply are added', async () => {
    const u = await newUser(t);
    const chatId = randomUUID();
    p.openai.reply = { text: 'First answer', usage: { prompt_tokens: 10, completion_tokens: 5 } };
    const first = await send(u, chatId, [userText('First question')]);
    p.openai.reply = { text: 'Second answer', usage: { prompt_tokens: 30, completion_tokens: 5 } };
    const second = await send(u, chatId, [
      userText('First question'),
      first.message,
      userText('Second question'),
    ]);
    expect(textOf(second.message)).toBe('Second answer');
    // The whole history went upstream, the assistant's UI parts as plain text.
    expect(p.openai.requests[1].body.messages).toEqual([
      { role: 'user', content: 'First question' },
      { role: 'assistant', content: 'First answer' },
      { role: 'user', content: 'Second question' },
    ]);
    const chat = (await t.http.get(`/api/chats/${chatId}`).set(u.auth).expect(200)).body.data;
    expect(chat.messages.map((m: { content: string }) => m.content)).toEqual([
      'First question',
      'First answer',
      'Second question',
      'Second answer',
    ]);
    expect((await ledgerOf(t, u.user.id)).entries).toBe(3);
  });

  it('answers admission failures as JSON errors before the stream opens, charging nothing', async () => {
    const owner = await newUser(t);
    const other = await newUser(t, { credits: 0 });
    const ownersChat = randomUUID();
    await send(owner, ownersChat, [userText('Mine')]);

    const post = (u: TestUser, body: object) => t.http.post('/api/ai/chat').set(u.auth).send(body);
    const base = { messages: [userText('Hi')], modelId: 'gpt-4o', trigger: 'submit-message' };

    // Another user's chat id: 404, as everywhere.
    const foreign = await post(other, { ...base, id: ownersChat }).expect(404);
    expect(foreign.body.code).toBe('NOT_FOUND');
    // No credits: 402 before anything is streamed.
    const poor = await post(other, { ...base, id: randomUUID() }).expect(402);
    expect(poor.body.code).toBe('INSUFFICIENT_CREDITS');
    // Unknown model: 400.
    await post(owner, { ...base, id: randomUUID(), modelId: 'no-such-model' }).expect(400);
    // The transport's errors reach the client as the thrown error of sendMessages.
    await expect(send(other, randomUUID(), [userText('Hi')])).rejects.toThrow(/credits/i);

    expect(p.openai.requests).toHaveLength(1); // only the owner's first message went upstream
    expect(await ledgerOf(t, other.user.id)).toMatchObject({ credits: 0, ledgerSum: 0 });
  });

  it.each([
    [
      'a conversation that ends with the assistant',
      [{ id: 'a', role: 'assistant', parts: [{ type: 'text', text: 'Hi' }] }],
    ],
    [
      'a file part (not supported yet)',
      [
        {
          id: 'f',
          role: 'user',
          parts: [{ type: 'file', url: 'data:,x', mediaType: 'text/plain' }],
        },
      ],
    ],
    ['no messages', []],
  ])('refuses %s with 400 and changes nothing', async (_label, messages) => {
    const u = await newUser(t);
    const res = await t.http
      .post('/api/ai/chat')
      .set(u.auth)
      .send({ id: randomUUID(), messages, modelId: 'gpt-4o' })
      .expect(400);
    expect(res.body.code).toBe('VALIDATION_FAILED');
    expect(res.body.error).toMatch(/^messages/);
    // The same refusal in Chinese.
    const zh = await t.http
      .post('/api/ai/chat?locale=zh')
      .set(u.auth)
      .send({ id: randomUUID(), messages, modelId: 'gpt-4o' })
      .expect(400);
    expect(zh.body.error).toMatch(/^messages.*[\u4e00-\u9fff]/);
    expect(p.openai.requests).toHaveLength(0);
    expect(await ledgerOf(t, u.user.id)).toEqual({ credits: 100, ledgerSum: 100, entries: 1 });
  });

  it('a provider failure after admission is one error part; the hold is released', async () => {
    const u = await newUser(t);
    p.openai.reply = { status: 401 };
    const turn = await send(u, randomUUID(), [userText('Hi')]);
    expect(turn.chunks.map((c) => c.type)).toEqual(['start', 'error']);
    const error = turn.chunks[1] as Extract<UIMessageChunk, { type: 'error' }>;
    expect(error.errorText).toBe('The model provider rejected our API key'); // translated, no upstream body
    expect(textOf(turn.message)).toBe('');
    expect(await ledgerOf(t, u.user.id)).toEqual({ credits: 100, ledgerSum: 100, entries: 1 });
    expect(Number((await t.db.query('SELECT count(*) FROM credit_holds'))[0].count)).toBe(0);
  });

  it('a client abort (useChat stop) cancels upstream at once, charges what was streamed, saves it', async () => {
    const u = await newUser(t);
    // The upstream goes silent after two words: only the service's abort ends its request.
    p.openai.reply = { text: 'one two three four five six', chunks: 6, stallAfterChunks: 2 };
    const chatId = randomUUID();
    const abort = new AbortController();
    const transport = new DefaultChatTransport<UIMessage>({
      api,
      headers: u.auth,
      body: { modelId: 'gpt-4o' },
    });
    const stream = await transport.sendMessages({
      chatId,
      messages: [userText('Count')],
      trigger: 'submit-message',
      messageId: undefined,
      abortSignal: abort.signal,
    });
    const reader = stream.getReader();
    // Read until the first words arrive, then stop, as useChat's stop() does.
    while ((await reader.read()).value?.type !== 'text-delta');
    abort.abort();
    await reader.cancel().catch(() => undefined);

    expect(await waitFor(() => p.openai.requests[0]?.aborted === true)).toBe(true);
    const holds = async () =>
      Number((await t.db.query('SELECT count(*) FROM credit_holds'))[0].count);
    expect(await waitFor(async () => (await holds()) === 0)).toBe(true);
    const [entry] = await t.db.query(
      `SELECT amount, description FROM credit_transactions WHERE "userId" = $1 AND type = 'CONSUMPTION'`,
      [u.user.id],
    );
    expect(entry.amount).toBeLessThan(0);
    expect(entry.description).toMatch(/estimated: stream interrupted/);
    const ledger = await ledgerOf(t, u.user.id);
    expect(ledger).toMatchObject({ credits: ledger.ledgerSum, entries: 2 });
    const chat = (await t.http.get(`/api/chats/${chatId}`).set(u.auth).expect(200)).body.data;
    const partial = chat.messages[1].content;
    expect(partial.length).toBeGreaterThan(0);
    expect('one two three four five six'.startsWith(partial)).toBe(true);
    expect(partial).not.toBe('one two three four five six');
  });

  it("shows the tool loop as the AI SDK's dynamic tool parts, one step per model call", async () => {
    const u = await newUser(t, { credits: 1000 });
    p.openai.script = [
      { toolCalls: [{ name: 'calculator', arguments: { expression: '6*7' } }] },
      { text: 'It is 42.', chunks: 1 },
    ];
    const turn = await send(u, randomUUID(), [userText('What is 6*7?')], {
      modelId: 'gpt-4o',
      plugins: ['calculator'],
    });
    expect(turn.chunks.map((c) => c.type)).toEqual([
      'start',
      'start-step',
      'text-start',
      'text-end',
      'tool-input-available',
      'tool-output-available',
      'finish-step',
      'start-step',
      'text-start',
      'text-delta',
      'text-end',
      'finish-step',
      'finish',
    ]);
    // readUIMessageStream builds the message the UI renders: the tool part with its output.
    const tool = turn.message.parts.find((part) => part.type === 'dynamic-tool');
    expect(tool).toEqual(
      expect.objectContaining({
        toolName: 'calculator',
        state: 'output-available',
        input: { expression: '6*7' },
        output: '42',
      }),
    );
    expect(textOf(turn.message)).toBe('It is 42.');
  });
});
