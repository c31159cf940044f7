import OpenAI from 'openai';
import { startProviders, type Providers } from '../../support/providers';
import { ledgerOf, newUser, type TestUser } from '../../support/factories';
import { createTestApp, type TestApp } from '../../support/test-app';
import { balanceOf, MODELS, sdkClient, v1BaseUrl } from './openai-responses.helpers';
import { waitFor } from '../../support/wait';

/**
 * `/v1/responses`, OpenAI's Responses API, driven by the official `openai` SDK against the app
 * with each provider behind it: whole and streamed answers, metering, stored responses,
 * `previous_response_id`, and refusals that change nothing.
 */
describe('OpenAI Responses API /v1/responses', () => {
  let t: TestApp;
  let p: Providers;
  let baseURL: string;

  beforeAll(async () => {
    p = await startProviders();
    t = await createTestApp(p.env);
    baseURL = await v1BaseUrl(t);
  });
  afterAll(async () => {
    await t.close();
    await p.stop();
  });
  beforeEach(() => p.reset());

  const clientFor = (u: TestUser, scopes?: string[]) => sdkClient(t, baseURL, u, scopes);
  const balance = (userId: string) => balanceOf(t, userId);
  const consumptions = (userId: string): Promise<{ amount: number; modelId: string }[]> =>
    t.db.query(
      `SELECT amount, "modelId" FROM credit_transactions WHERE "userId" = $1 AND type = 'CONSUMPTION' ORDER BY "createdAt"`,
      [userId],
    );
  const count = async (table: 'chats' | 'responses', userId: string): Promise<number> =>
    Number(
      (await t.db.query(`SELECT count(*) AS n FROM ${table} WHERE "userId" = $1`, [userId]))[0].n,
    );
  const storedOf = (userId: string) => count('responses', userId);
  const chatsOf = (userId: string) => count('chats', userId);
  /** What `promise` rejects with, else what it resolves to. */
  const error = (promise: Promise<unknown>) => promise.catch((e: unknown) => e as unknown);

  it.each(MODELS)(
    'answers a whole response from %s, charged exactly its cost, saving nothing',
    async (model) => {
      const u = await newUser(t);
      const client = await clientFor(u);
      const before = await balance(u.user.id);
      const response = await client.responses.create({
        model,
        instructions: 'Be brief.',
        input: 'Say hello',
        max_output_tokens: 200,
        metadata: { ticket: '42' },
      });
      expect(response).toEqual(
        expect.objectContaining({
          object: 'response',
          status: 'completed',
          model,
          instructions: 'Be brief.',
          max_output_tokens: 200,
          metadata: { ticket: '42' },
          store: false,
          previous_response_id: null,
        }),
      );
      expect(response.id).toMatch(/^resp_/);
      expect(response.output_text).toBe('Hello from the test model.');
      expect(response.output).toEqual([
        expect.objectContaining({ type: 'message', role: 'assistant', status: 'completed' }),
      ]);
      const usage = response.usage!;
      expect(usage.total_tokens).toBe(usage.input_tokens + usage.output_tokens);
      expect(usage.input_tokens_details.cached_tokens).toBeGreaterThanOrEqual(0);
      const cost = (response as unknown as { cost: number }).cost;
      expect(cost).toBeGreaterThan(0);
      expect(await balance(u.user.id)).toBe(before - cost);
      expect(await consumptions(u.user.id)).toEqual([{ amount: -cost, modelId: model }]);
      expect([await chatsOf(u.user.id), await storedOf(u.user.id)]).toEqual([0, 0]);
      // Not stored: nothing to retrieve.
      expect(await error(client.responses.retrieve(response.id))).toBeInstanceOf(
        OpenAI.NotFoundError,
      );
    },
  );

  it.each(MODELS)('streams a response from %s in the documented event order', async (model) => {
    const u = await newUser(t);
    const client = await clientFor(u);
    const words = 'one two three';
    p.openai.reply = { text: words, chunks: 3 };
    p.anthropic.reply = { text: words, chunks: 3 };
    p.gemini.reply = { text: words, chunks: 3 };
    const before = await balance(u.user.id);
    const stream = client.responses.stream({ model, input: 'Count' });
    const types: string[] = [];
    const sequence: number[] = [];
    let text = '';
    for await (const event of stream) {
      types.push(event.type);
      sequence.push(event.sequence_number);
      if (event.type === 'response.output_text.delta') text += event.delta;
    }
    const response = await stream.finalResponse();
    expect(text).toBe(words);
    expect(sequence).toEqual(types.map((_, i) => i));
    const deltas = types.filter((type) => type === 'response.output_text.delta').length;
    expect(deltas).toBeGreaterThan(0);
    expect(types).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      ...Array<string>(deltas).fill('response.output_text.delta'),
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ]);
    expect(response.status).toBe('completed');
    expect(response.output_text).toBe(words);
    const cost = (response as unknown as { cost: number }).cost;
    expect(await balance(u.user.id)).toBe(before - cost);
    expect(await consumptions(u.user.id)).toEqual([{ amount: -cost, modelId: model }]);
  });

  it('stores a response with store: true, retrieves it, and continues it with previous_response_id', async () => {
    const u = await newUser(t);
    const client = await clientFor(u, ['ai', 'chats:read', 'chats:write']);
    p.anthropic.reply = { text: 'Your name is Ada.' };
    const first = await client.responses.create({
      model: 'claude-haiku-4-5',
      instructions: 'Remember names.',
      input: 'My name is Ada.',
      store: true,
    });
    expect((first as unknown as { store: boolean }).store).toBe(true);
    const retrieved = await client.responses.retrieve(first.id);
    expect(retrieved).toEqual(first);

    const second = await client.responses.create({
      model: 'claude-haiku-4-5',
      input: [{ role: 'user', content: [{ type: 'input_text', text: 'What is my name?' }] }],
      previous_response_id: first.id,
      store: true,
    });
    expect(second.previous_response_id).toBe(first.id);
    expect(second.output_text).toBe('Your name is Ada.');
    // The previous exchange is replayed; its instructions are not carried over.
    const sent = p.anthropic.requests[1].body as { system?: unknown; messages: unknown[] };
    expect(sent.system).toBeUndefined();
    expect(sent.messages).toEqual([
      { role: 'user', content: 'My name is Ada.' },
      { role: 'assistant', content: 'Your name is Ada.' },
      { role: 'user', content: 'What is my name?' },
    ]);
    // One chat holds the conversation.
    const messages = await t.db.query(
      `SELECT m.role, m.content FROM messages m JOIN chats c ON c.id = m."chatId"
       WHERE c."userId" = $1 ORDER BY m."createdAt", m.seq`,
      [u.user.id],
    );
    expect(messages.map((m: { content: string }) => m.content)).toEqual([
      'My name is Ada.',
      'Your name is Ada.',
      'What is my name?',
      'Your name is Ada.',
    ]);
    expect(await chatsOf(u.user.id)).toBe(1);
    expect((await client.responses.retrieve(second.id)).id).toBe(second.id);
  });

  it("refuses another user's response: 404 to retrieve, 400 to continue; and continuing without store", async () => {
    const owner = await newUser(t);
    const other = await newUser(t);
    const ownerClient = await clientFor(owner);
    const otherClient = await clientFor(other, ['ai', 'chats:read', 'chats:write']);
    const stored = await ownerClient.responses.create({
      model: 'gpt-4o',
      input: 'Hi',
      store: true,
    });
    const unstored = await ownerClient.responses.create({ model: 'gpt-4o', input: 'Hi' });
    const before = await ledgerOf(t, other.user.id);

    expect(await error(otherClient.responses.retrieve(stored.id))).toBeInstanceOf(
      OpenAI.NotFoundError,
    );
    for (const id of [stored.id, unstored.id, 'resp_unknown']) {
      const refused = await error(
        otherClient.responses.create({
          model: 'gpt-4o',
          input: 'Go on',
          previous_response_id: id,
          store: true,
        }),
      );
      expect(refused).toBeInstanceOf(OpenAI.BadRequestError);
      expect((refused as InstanceType<typeof OpenAI.BadRequestError>).code).toBe(
        'previous_response_not_found',
      );
      expect((refused as InstanceType<typeof OpenAI.BadRequestError>).param).toBe(
        'previous_response_id',
      );
    }
    const withoutStore = await error(
      ownerClient.responses.create({
        model: 'gpt-4o',
        input: 'Go on',
        previous_response_id: stored.id,
      }),
    );
    expect(withoutStore).toBeInstanceOf(OpenAI.BadRequestError);
    expect((withoutStore as InstanceType<typeof OpenAI.BadRequestError>).param).toBe('store');
    // A key without chats:write may not add to the stored response's chat.
    const scoped = await error(
      ownerClient.responses.create({
        model: 'gpt-4o',
        input: 'Go on',
        previous_response_id: stored.id,
        store: true,
      }),
    );
    expect(scoped).toBeInstanceOf(OpenAI.PermissionDeniedError);
    expect(await ledgerOf(t, other.user.id)).toEqual(before);
    expect(await storedOf(other.user.id)).toBe(0);
  });

  it('refuses what it cannot honour with 400 and param, writing nothing', async () => {
    const u = await newUser(t);
    const client = await clientFor(u);
    const before = await ledgerOf(t, u.user.id);
    const cases: [object, string][] = [
      [{ tools: [{ type: 'web_search' }] }, 'tools[0].type'],
      [{ background: true }, 'background'],
      [{ reasoning: { effort: 'high' } }, 'reasoning'],
      [{ input: [{ type: 'item_reference', id: 'msg_1' }] }, 'input[0].type'],
      [{ input: [] }, 'input'],
      [{ max_output_tokens: 0 }, 'max_output_tokens'],
    ];
    for (const [fields, param] of cases) {
      const refused = await error(
        client.responses.create({ model: 'gpt-4o', input: 'Hi', store: true, ...fields } as never),
      );
      expect([fields, refused instanceof OpenAI.BadRequestError]).toEqual([fields, true]);
      expect([fields, (refused as InstanceType<typeof OpenAI.BadRequestError>).param]).toEqual([
        fields,
        param,
      ]);
    }
    expect(p.openai.requests).toHaveLength(0);
    expect(await ledgerOf(t, u.user.id)).toEqual(before);
    expect([await chatsOf(u.user.id), await storedOf(u.user.id)]).toEqual([0, 0]);
  });

  it('charges a stream (create with stream: true) the client aborts for what was produced, leaving no hold', async () => {
    const u = await newUser(t);
    const client = await clientFor(u);
    p.openai.reply = { text: 'a b c d e f', chunks: 6, stallAfterChunks: 2 };
    const controller = new AbortController();
    const stream = await client.responses.create(
      { model: 'gpt-4o', input: 'Go', stream: true, store: true },
      { signal: controller.signal },
    );
    let seen = '';
    const types: string[] = [];
    for await (const event of stream) {
      types.push(event.type);
      if (event.type === 'response.output_text.delta') seen += event.delta;
      if (seen.length > 0) controller.abort();
    }
    expect(seen.length).toBeGreaterThan(0);
    expect(types.slice(0, 2)).toEqual(['response.created', 'response.in_progress']);
    expect(await waitFor(async () => p.openai.requests[0]?.aborted === true)).toBe(true);
    const settled = async () =>
      Number((await t.db.query('SELECT count(*) FROM credit_holds'))[0].count) === 0;
    expect(await waitFor(settled)).toBe(true);
    const [entry, ...more] = await t.db.query(
      `SELECT amount, description FROM credit_transactions WHERE "userId" = $1 AND type = 'CONSUMPTION'`,
      [u.user.id],
    );
    expect(more).toEqual([]);
    expect(entry.description).toMatch(/estimated/);
    const ledger = await ledgerOf(t, u.user.id);
    expect(ledger.credits).toBe(ledger.ledgerSum);
    // Cut before its end: no response was announced complete, so none is kept.
    expect(await storedOf(u.user.id)).toBe(0);
  });
});
