import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ApiScope } from '../../../src/common/auth/api-scopes';
import { newUser, type TestUser } from '../../support/factories';
import { startProviders, type Providers } from '../../support/providers';
import { createTestApp, type TestApp } from '../../support/test-app';
import { PNG_BYTES } from '../../support/uploads';

/**
 * An upload attached in a chat is chat content: a key without `chats:read` may not send it to a
 * model, even when it is the key user's own (describing it would read the chat). It may send
 * its user's uploads that are in no chat.
 */
describe('API key scopes: own uploads attached in a chat', () => {
  let t: TestApp;
  let p: Providers;
  let u: TestUser;
  let keyFor: (scopes: ApiScope[]) => Promise<{ Authorization: string }>;

  beforeAll(async () => {
    p = await startProviders();
    t = await createTestApp({
      ...p.env,
      API_KEY_RPM: '100000',
      UPLOAD_DIR: mkdtempSync(join(tmpdir(), 'scoped-attached-')),
    });
    u = await newUser(t, { credits: 1000 });
    keyFor = async (scopes) => {
      const res = await t.http
        .post('/api/keys')
        .set(u.auth)
        .send({ name: 'k', scopes })
        .expect(201);
      return { Authorization: `Bearer ${res.body.key}` };
    };
  });
  afterAll(async () => {
    await t.close();
    await p.stop();
  });
  beforeEach(() => p.reset());

  async function upload(): Promise<{ id: string; filename: string }> {
    const res = await t.http.post('/api/upload').set(u.auth).attach('file', PNG_BYTES, 'a.png');
    expect(res.status).toBe(200);
    const [{ filename }] = await t.db.query('SELECT filename FROM uploads WHERE id = $1', [
      res.body.data.id,
    ]);
    return { id: res.body.data.id, filename };
  }
  const image = (ref: object) => [
    {
      role: 'user',
      content: [
        { type: 'text', text: 'Describe it' },
        { type: 'image', ...ref },
      ],
    },
  ];
  const generate = (auth: { Authorization: string }, ref: object) =>
    t.http
      .post('/api/ai/generate')
      .set(auth)
      .send({ modelId: 'gpt-4o-mini', messages: image(ref) });
  const v1Image = (auth: { Authorization: string }, url: string) =>
    t.http
      .post('/v1/chat/completions')
      .set(auth)
      .send({
        model: 'gpt-4o-mini',
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'Describe it' },
              { type: 'image_url', image_url: { url } },
            ],
          },
        ],
      });
  const responsesImage = (auth: { Authorization: string }, url: string) =>
    t.http
      .post('/v1/responses')
      .set(auth)
      .send({
        model: 'gpt-4o-mini',
        input: [
          {
            role: 'user',
            content: [
              { type: 'input_text', text: 'Describe it' },
              { type: 'input_image', image_url: url },
            ],
          },
        ],
      });
  const outcome = (res: { status: number; body: any }) => {
    const code = res.body.code ?? res.body.error?.code?.toUpperCase();
    const scope = res.body.requiredScope ?? res.body.error?.requiredScope;
    return `${res.status} ${code ?? ''} ${scope ?? ''}`.trim();
  };
  const state = async () => {
    const [row] = await t.db.query(
      `SELECT (SELECT credits FROM users WHERE id = $1) AS credits,
              (SELECT count(*)::int FROM credit_transactions WHERE "userId" = $1) AS entries,
              (SELECT count(*)::int FROM credit_holds) AS holds,
              (SELECT count(*)::int FROM messages) AS messages`,
      [u.user.id],
    );
    return row;
  };

  it('refuses an `ai`-only key an own upload attached in a chat (403, nothing sent, nothing charged); a key with chats:read may', async () => {
    const attached = await upload();
    // The session attaches it in a chat of its own.
    await generate(u.auth, { uploadId: attached.id }).expect(200);
    p.reset();
    const [aiOnly, reader] = await Promise.all([keyFor(['ai']), keyFor(['ai', 'chats:read'])]);
    const before = await state();

    const refusals: [string, Promise<{ status: number; body: any }>][] = [
      ['uploadId', generate(aiOnly, { uploadId: attached.id })],
      ['upload URL', generate(aiOnly, { url: `/uploads/${attached.filename}` })],
      ['/v1/chat/completions image_url', v1Image(aiOnly, `/uploads/${attached.filename}`)],
      ['/v1/responses input_image', responsesImage(aiOnly, `/uploads/${attached.filename}`)],
    ];
    const got: Record<string, string> = {};
    for (const [name, res] of refusals) got[name] = outcome(await res);
    expect(got).toEqual(
      Object.fromEntries(refusals.map(([name]) => [name, '403 INSUFFICIENT_SCOPE chats:read'])),
    );
    expect(p.openai.requests).toHaveLength(0);
    expect(await state()).toEqual(before);

    expect((await generate(reader, { uploadId: attached.id })).status).toBe(200);
    expect(p.openai.requests).toHaveLength(1);
  });

  it('lets an `ai`-only key send an own upload that is in no chat, until a saved exchange attaches it', async () => {
    const fresh = await upload();
    const aiOnly = await keyFor(['ai']);
    // /v1 without store saves no chat: the upload stays in none.
    expect((await v1Image(aiOnly, `/uploads/${fresh.filename}`)).status).toBe(200);
    expect((await v1Image(aiOnly, `/uploads/${fresh.filename}`)).status).toBe(200);
    // /api/ai/generate saves the exchange, attaching the upload in the new chat.
    expect((await generate(aiOnly, { uploadId: fresh.id })).status).toBe(200);
    expect(outcome(await generate(aiOnly, { uploadId: fresh.id }))).toBe(
      '403 INSUFFICIENT_SCOPE chats:read',
    );
    expect(p.openai.requests).toHaveLength(3);
  });
});
