import { ledgerOf, newUser, type TestUser } from '../../support/factories';
import { startProviders, type Providers } from '../../support/providers';
import { parseSse } from '../../support/sse';
import { createTestApp, type TestApp } from '../../support/test-app';
import { streamThenLeave } from '../../support/walk-away';
import { catalogueWithPlainModels } from '../../support/catalogue';
import { waitFor } from '../../support/wait';
import { McpTestServer } from '../../servers/mcp-server';

describe('AI tool loop: each model call held and charged, the loop shown and saved', () => {
  let t: TestApp;
  let p: Providers;
  const mcp = new McpTestServer();

  beforeAll(async () => {
    p = await startProviders();
    await mcp.start();
    t = await createTestApp({
      ...p.env,
      MODELS_FILE: catalogueWithPlainModels('no-tools'),
      PLUGIN_ALLOWED_HOSTS: '127.0.0.1',
    });
  });
  afterAll(async () => {
    await t.close();
    await p.stop();
    await mcp.stop();
  });
  beforeEach(() => p.reset());

  const ask = (modelId: string, extra: object = {}) => ({
    modelId,
    plugins: ['calculator'],
    messages: [{ role: 'user', content: 'What is 2^10 + 0.1 + 0.2?' }],
    ...extra,
  });
  const consumption = (u: TestUser) =>
    t.db.query(
      `SELECT amount FROM credit_transactions WHERE "userId" = $1 AND type = 'CONSUMPTION' ORDER BY "createdAt"`,
      [u.user.id],
    );
  const openHolds = async () =>
    Number((await t.db.query('SELECT count(*) FROM credit_holds'))[0].count);
  const calc = { name: 'calculator', arguments: { expression: '2^10 + 0.1 + 0.2' } };

  it.each([
    [
      'gpt-4o-mini',
      'openai',
      // The second request carries the call and its result as OpenAI has them.
      (body: any) => {
        const [, assistant, tool] = body.messages;
        expect(assistant.tool_calls[0].function).toEqual({
          name: 'calculator',
          arguments: JSON.stringify(calc.arguments),
        });
        expect(tool).toEqual({
          role: 'tool',
          tool_call_id: assistant.tool_calls[0].id,
          content: expect.stringContaining('1024.3'),
        });
        expect(body.tools[0]).toEqual(
          expect.objectContaining({ type: 'function', function: expect.any(Object) }),
        );
      },
    ],
    [
      'claude-haiku-4-5',
      'anthropic',
      (body: any) => {
        const [, assistant, user] = body.messages;
        const use = assistant.content.find((b: any) => b.type === 'tool_use');
        expect(use).toEqual(expect.objectContaining({ name: 'calculator', input: calc.arguments }));
        expect(user.content).toEqual([
          {
            type: 'tool_result',
            tool_use_id: use.id,
            content: expect.stringContaining('1024.3'),
          },
        ]);
        expect(body.tools[0]).toEqual(
          expect.objectContaining({ input_schema: expect.any(Object) }),
        );
      },
    ],
    [
      'gemini-2.5-flash',
      'gemini',
      (body: any) => {
        const [, model, user] = body.contents;
        expect(model.parts[0].functionCall).toEqual(
          expect.objectContaining({ name: 'calculator', args: calc.arguments }),
        );
        expect(user.parts[0].functionResponse).toEqual(
          expect.objectContaining({
            name: 'calculator',
            response: { output: expect.stringContaining('1024.3') },
          }),
        );
        expect(body.tools[0].functionDeclarations[0].name).toBe('calculator');
      },
    ],
  ] as const)(
    '%s: a two-step loop over SSE, a CONSUMPTION entry per model call, the loop saved',
    async (model, server, checkSecond) => {
      const u = await newUser(t, { credits: 1000 });
      p[server].script = [{ toolCalls: [calc] }, { text: 'It is 1024.3.', chunks: 2 }] as never;
      const res = await t.http
        .post('/api/ai/stream')
        .set(u.auth)
        .set('Accept', 'text/event-stream')
        .send(ask(model));
      expect(res.status).toBe(200);
      const { events } = parseSse(res.text);
      expect(events.map(([e]) => e)).toEqual([
        'tool_call',
        'tool_result',
        'delta',
        'delta',
        'done',
      ]);
      expect(events[0][1]).toEqual(
        expect.objectContaining({ name: 'calculator', arguments: calc.arguments }),
      );
      expect(events[1][1]).toEqual(
        expect.objectContaining({
          id: events[0][1].id,
          ok: true,
          summary: expect.stringContaining('1024.3'),
        }),
      );
      const done = events[4][1];
      expect(done.modelCalls).toBe(2);
      expect(done.stopReason).toBe('stop');

      expect(p[server].requests).toHaveLength(2);
      checkSecond(p[server].requests[1].body);
      const entries = await consumption(u);
      expect(entries).toHaveLength(2);
      expect(-entries[0].amount - entries[1].amount).toBe(done.cost);
      expect(await ledgerOf(t, u.user.id)).toEqual(
        expect.objectContaining({ credits: 1000 - done.cost, ledgerSum: 1000 - done.cost }),
      );
      expect(await openHolds()).toBe(0);

      const saved = await t.db.query(
        `SELECT role, content, tool FROM messages WHERE "chatId" = $1 ORDER BY seq`,
        [done.chatId],
      );
      expect(saved.map((m: { role: string }) => m.role)).toEqual([
        'USER',
        'ASSISTANT',
        'TOOL',
        'ASSISTANT',
      ]);
      expect(saved[1].tool.calls[0]).toEqual(expect.objectContaining(calc));
      expect(saved[2].tool).toEqual(expect.objectContaining({ name: 'calculator', ok: true }));
      expect(saved[3].content).toBe('It is 1024.3.');
    },
  );

  it('whole replies run the loop too; maxToolSteps stops a model that keeps calling tools', async () => {
    const u = await newUser(t, { credits: 1000 });
    p.openai.reply = { toolCalls: [calc] };
    const res = await t.http
      .post('/api/ai/generate')
      .set(u.auth)
      .send(ask('gpt-4o-mini', { maxToolSteps: 3 }));
    expect(res.status).toBe(200);
    expect(res.body).toEqual(
      expect.objectContaining({ modelCalls: 3, stopReason: 'max_tool_steps' }),
    );
    expect(p.openai.requests).toHaveLength(3);
    expect(res.body.usage).toEqual({ promptTokens: 30, completionTokens: 60 });
    expect(await consumption(u)).toHaveLength(3);
    expect(await openHolds()).toBe(0);
  });

  it('a tool that fails is told to the model, not raised', async () => {
    const u = await newUser(t, { credits: 1000 });
    p.anthropic.script = [
      { toolCalls: [{ name: 'calculator', arguments: { expression: '1/0' } }] },
      { text: 'That cannot be computed.' },
    ];
    const res = await t.http.post('/api/ai/generate').set(u.auth).send(ask('claude-haiku-4-5'));
    expect(res.status).toBe(200);
    expect(res.body.text).toBe('That cannot be computed.');
    const result = p.anthropic.requests[1].body.messages[2].content[0];
    expect(result).toEqual(expect.objectContaining({ type: 'tool_result', is_error: true }));
  });

  it('an abort mid-loop stops at once and charges what was produced', async () => {
    const u = await newUser(t, { credits: 1000 });
    p.gemini.script = [
      { toolCalls: [calc] },
      // Silent after two words: only the service's abort ends this request.
      { text: 'one two three four five six', chunks: 6, stallAfterChunks: 2 },
    ];
    // Walk away at the second call's first words.
    await streamThenLeave(
      t.app,
      '/api/ai/stream',
      { ...u.auth, accept: 'text/event-stream' },
      ask('gemini-2.5-flash'),
      (received) => received.includes('event: delta'),
    );
    expect(await waitFor(() => p.gemini.requests[1]?.aborted === true)).toBe(true);
    expect(await waitFor(async () => (await openHolds()) === 0)).toBe(true);
    const entries = await consumption(u);
    expect(entries).toHaveLength(2);
    const ledger = await ledgerOf(t, u.user.id);
    expect(ledger.credits).toBe(ledger.ledgerSum);
    expect(p.gemini.requests).toHaveLength(2);
  });

  it('refuses plugins the model cannot use, and unknown plugins, before any call', async () => {
    const u = await newUser(t);
    const noTools = await t.http.post('/api/ai/generate').set(u.auth).send(ask('no-tools'));
    expect(noTools.status).toBe(400);
    expect(noTools.body.code).toBe('MODEL_CAPABILITY_MISSING');
    const unknown = await t.http
      .post('/api/ai/generate')
      .set(u.auth)
      .send(ask('gpt-4o-mini', { plugins: ['no-such-plugin'] }));
    expect(unknown.status).toBe(400);
    expect(unknown.body.code).toBe('UNKNOWN_PLUGIN');
    expect(p.openai.requests).toHaveLength(0);
    expect((await ledgerOf(t, u.user.id)).credits).toBe(100);
  });

  it("an admin's MCP server: registered, listed, and its tool called by the model through the loop", async () => {
    const admin = await newUser(t, { role: 'ADMIN' });
    const u = await newUser(t, { credits: 1000 });
    await t.http
      .post('/api/plugins')
      .set(admin.auth)
      .send({ name: 'demo', url: mcp.url, enabled: true })
      .expect(201);
    const listed = await t.http.get('/api/plugins').set(u.auth).expect(200);
    expect(JSON.stringify(listed.body)).toContain('demo__echo');

    p.openai.script = [
      { toolCalls: [{ name: 'demo__echo', arguments: { text: 'hi there' } }] },
      { text: 'The server said hi.' },
    ];
    const res = await t.http
      .post('/api/ai/stream')
      .set(u.auth)
      .set('Accept', 'text/event-stream')
      .send(ask('gpt-4o-mini', { plugins: ['demo'] }));
    expect(res.status).toBe(200);
    const { events } = parseSse(res.text);
    const result = events.find(([e]) => e === 'tool_result')![1];
    expect(result).toEqual(expect.objectContaining({ name: 'demo__echo', ok: true }));
    expect(p.openai.requests[1].body.messages[2]).toEqual(
      expect.objectContaining({ role: 'tool', content: 'echo: hi there' }),
    );
    expect(await consumption(u)).toHaveLength(2);
  });

  it("a chat's settings choose its plugins; a request's own list (even []) replaces them", async () => {
    const u = await newUser(t, { credits: 1000 });
    const first = await t.http
      .post('/api/ai/generate')
      .set(u.auth)
      .send({ modelId: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hi' }] })
      .expect(200);
    const chatId = first.body.chatId;
    const patched = await t.http
      .patch(`/api/chats/${chatId}`)
      .set(u.auth)
      .send({ settings: { plugins: ['calculator'] } })
      .expect(200);
    expect(patched.body.data.settings).toEqual({ plugins: ['calculator'] });

    p.openai.reset();
    p.openai.script = [{ toolCalls: [calc] }, { text: 'Done.' }];
    const next = (extra: object = {}) =>
      t.http
        .post('/api/ai/generate')
        .set(u.auth)
        .send({
          modelId: 'gpt-4o-mini',
          chatId,
          messages: [{ role: 'user', content: 'Sum it' }],
          ...extra,
        });
    const looped = await next();
    expect(looped.status).toBe(200);
    expect(looped.body.modelCalls).toBe(2);
    expect(p.openai.requests[0].body.tools[0].function.name).toBe('calculator');

    p.openai.reset();
    const plain = await next({ plugins: [] });
    expect(plain.status).toBe(200);
    expect(p.openai.requests[0].body.tools).toBeUndefined();
  });
});
