import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { IMAGE_TOKENS_WORST_CASE } from '../../../src/ai/admission/image-tokens';
import { ledgerOf, newTeam, newUser, type TestUser } from '../../support/factories';
import { startProviders, type Providers } from '../../support/providers';
import { createTestApp, type TestApp } from '../../support/test-app';
import { catalogueWithPlainModels } from '../../support/catalogue';
import { PNG_BYTES } from '../../support/uploads';

describe('AI images: parts, access, capability, hold and saving', () => {
  let t: TestApp;
  let p: Providers;

  beforeAll(async () => {
    p = await startProviders();
    t = await createTestApp({
      ...p.env,
      MODELS_FILE: catalogueWithPlainModels('text-only'),
      UPLOAD_DIR: mkdtempSync(join(tmpdir(), 'images-uploads-')),
    });
  });
  afterAll(async () => {
    await t.close();
    await p.stop();
  });
  beforeEach(() => p.reset());

  async function upload(u: TestUser, bytes = PNG_BYTES, name = 'shot.png'): Promise<string> {
    const res = await t.http.post('/api/upload').set(u.auth).attach('file', bytes, name);
    expect(res.status).toBe(200);
    return res.body.data.id as string;
  }
  const ask = (modelId: string, uploadIds: string[], extra: object = {}) => ({
    modelId,
    messages: [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'What is in this picture?' },
          ...uploadIds.map((uploadId) => ({ type: 'image', uploadId })),
        ],
      },
    ],
    ...extra,
  });
  const b64 = PNG_BYTES.toString('base64');
  const openHolds = async (u: TestUser): Promise<number> =>
    Number(
      (await t.db.query('SELECT count(*) FROM credit_holds WHERE "userId" = $1', [u.user.id]))[0]
        .count,
    );

  it.each([
    [
      'gpt-4o-mini',
      'openai',
      (body: any) => body.messages[0].content,
      [
        { type: 'text', text: 'What is in this picture?' },
        { type: 'image_url', image_url: { url: `data:image/png;base64,${b64}` } },
      ],
    ],
    [
      'claude-haiku-4-5',
      'anthropic',
      (body: any) => body.messages[0].content,
      [
        { type: 'image', source: { type: 'base64', media_type: 'image/png', data: b64 } },
        { type: 'text', text: 'What is in this picture?' },
      ],
    ],
    [
      'gemini-2.5-flash',
      'gemini',
      (body: any) => body.contents[0].parts,
      [{ text: 'What is in this picture?' }, { inlineData: { mimeType: 'image/png', data: b64 } }],
    ],
  ] as const)(
    '%s: the image arrives as %s expects it, with its bytes; charged by reported usage; saved with the message',
    async (model, server, partsOf, expected) => {
      const u = await newUser(t, { credits: 1000 });
      const id = await upload(u);
      const res = await t.http
        .post('/api/ai/generate')
        .set(u.auth)
        .send(ask(model, [id]));
      expect(res.status).toBe(200);
      expect(p[server].requests).toHaveLength(1);
      expect(partsOf(p[server].requests[0].body)).toEqual(expected);

      // The charge is the reported usage (10 + 20 tokens), not the image's held worst case.
      expect(res.body.cost).toBeGreaterThan(0);
      expect(await ledgerOf(t, u.user.id)).toEqual({
        credits: 1000 - res.body.cost,
        ledgerSum: 1000 - res.body.cost,
        entries: 3, // the sign-up bonus, the top-up to 1000, and this reply
      });
      expect(await openHolds(u)).toBe(0);
      const rows = await t.db.query(
        `SELECT m.role, m.content, a.position, a."uploadId" FROM messages m
           JOIN message_attachments a ON a."messageId" = m.id WHERE m."chatId" = $1`,
        [res.body.chatId],
      );
      expect(rows).toEqual([
        { role: 'USER', content: 'What is in this picture?', position: 0, uploadId: id },
      ]);

      // Chat reads return the image with a signed link that works without a session.
      const chat = await t.http.get(`/api/chats/${res.body.chatId}`).set(u.auth).expect(200);
      const [asked, answer] = chat.body.data.messages;
      expect(asked.attachments).toEqual([
        {
          uploadId: id,
          filename: expect.stringMatching(/shot\.png$/),
          contentType: 'image/png',
          url: expect.stringMatching(/^\/uploads\/.+\?exp=\d+&sig=/),
        },
      ]);
      expect(answer.attachments).toBeUndefined();
      const file = await t.http.get(asked.attachments[0].url).buffer(true).expect(200);
      expect(Buffer.compare(file.body as Buffer, PNG_BYTES)).toBe(0);
      const page = await t.http
        .get(`/api/chats/${res.body.chatId}/messages`)
        .set(u.auth)
        .expect(200);
      expect(page.body.data[0].attachments[0].uploadId).toBe(id);
    },
  );

  it('streams with images too (SSE), and the hold counted the image at its worst case', async () => {
    const u = await newUser(t, { credits: 1000 });
    const id = await upload(u);
    const est = await t.http
      .post('/api/credits/estimate')
      .set(u.auth)
      .send({ modelId: 'gpt-4o', messages: ask('gpt-4o', [id, id]).messages })
      .expect(200);
    // "What is in this picture?" is 24 characters → 6 tokens, plus two images' worst case.
    expect(est.body.estimatedTokens).toBe(6 + 2 * IMAGE_TOKENS_WORST_CASE.openai);

    const res = await t.http
      .post('/api/ai/stream')
      .set(u.auth)
      .set('Accept', 'text/event-stream')
      .send(ask('gpt-4o-mini', [id]));
    expect(res.status).toBe(200);
    expect(res.text).toContain('event: done');
    expect(JSON.stringify(p.openai.requests[0].body)).toContain(b64);
  });

  it('a user who can pay for the text but not for the image worst case gets 402, nothing sent', async () => {
    // gpt-4o: 0.00001 credits per token × 1000 → an image holds ceil(1445 × 0.01) = 15 credits.
    const u = await newUser(t, { credits: 12 });
    const id = await upload(u);
    const res = await t.http
      .post('/api/ai/generate')
      .set(u.auth)
      .send(ask('gpt-4o', [id], { maxTokens: 1 }));
    expect(res.status).toBe(402);
    expect(res.body.code).toBe('INSUFFICIENT_CREDITS');
    expect(p.openai.requests).toHaveLength(0);
    const text = await t.http
      .post('/api/ai/generate')
      .set(u.auth)
      .send({ modelId: 'gpt-4o', maxTokens: 1, messages: [{ role: 'user', content: 'Hi' }] });
    expect(text.status).toBe(200);
  });

  it('refuses what it must, before any hold or upstream call', async () => {
    const u = await newUser(t);
    const stranger = await newUser(t);
    const mine = await upload(u);
    const theirs = await upload(stranger);
    const text = await upload(u, Buffer.from('just some words\n'), 'notes.txt');
    const cases: [object, number, string][] = [
      [ask('text-only', [mine]), 400, 'MODEL_CAPABILITY_MISSING'],
      [ask('gpt-4o-mini', [theirs]), 404, 'NOT_FOUND'],
      [ask('gpt-4o-mini', ['00000000-0000-4000-8000-000000000000']), 404, 'NOT_FOUND'],
      [ask('gpt-4o-mini', [mine, mine, mine, mine, mine]), 400, 'VALIDATION_FAILED'],
      [ask('gpt-4o-mini', [text]), 400, 'VALIDATION_FAILED'],
      [
        {
          modelId: 'gpt-4o-mini',
          messages: [{ role: 'user', content: [{ type: 'image', uploadId: 'nope' }] }],
        },
        400,
        'VALIDATION_FAILED',
      ],
      [
        {
          modelId: 'gpt-4o-mini',
          messages: [
            { role: 'user', content: 'Hi' },
            { role: 'assistant', content: [{ type: 'image', uploadId: mine }] },
          ],
        },
        400,
        'VALIDATION_FAILED',
      ],
    ];
    for (const [body, status, code] of cases) {
      const res = await t.http.post('/api/ai/generate').set(u.auth).send(body);
      expect({ status: res.status, code: res.body.code }).toEqual({ status, code });
    }
    expect(p.openai.requests).toHaveLength(0);
    expect((await ledgerOf(t, u.user.id)).credits).toBe(100);
    expect(await openHolds(u)).toBe(0);
  });

  it('a team member may send an image attached to a chat shared with the team, a stranger may not', async () => {
    const owner = await newUser(t, { credits: 1000 });
    const member = await newUser(t, { credits: 1000 });
    const stranger = await newUser(t, { credits: 1000 });
    const team = await newTeam(t, owner, { members: [[member, 'MEMBER']] });
    const id = await upload(owner);
    const first = await t.http
      .post('/api/ai/generate')
      .set(owner.auth)
      .send(ask('gpt-4o-mini', [id]))
      .expect(200);
    await t.http
      .put(`/api/chats/${first.body.chatId}/team`)
      .set(owner.auth)
      .send({ teamId: team.id })
      .expect(200);

    const ok = await t.http
      .post('/api/ai/generate')
      .set(member.auth)
      .send(ask('gpt-4o-mini', [id]));
    expect(ok.status).toBe(200);
    const no = await t.http
      .post('/api/ai/generate')
      .set(stranger.auth)
      .send(ask('gpt-4o-mini', [id]));
    expect(no.status).toBe(404);
  });

  it("another user's upload and an unknown one get the same 404 body on every image path, naming neither id nor file", async () => {
    const u = await newUser(t, { credits: 1000 });
    const stranger = await newUser(t);
    const theirs = await upload(stranger);
    const [{ filename }] = await t.db.query('SELECT filename FROM uploads WHERE id = $1', [theirs]);
    const unknownId = '00000000-0000-4000-8000-000000000000';
    const unknownName = `${unknownId}-missing.png`;
    const { key } = (await t.http.post('/api/keys').set(u.auth).send({ name: 'sdk' }).expect(201))
      .body;
    const part = (ref: object) => ({
      modelId: 'gpt-4o-mini',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Look' },
            { type: 'image', ...ref },
          ],
        },
      ],
    });
    const paths: Record<string, (ref: { id: string; name: string }) => Promise<any>> = {
      uploadId: (r) =>
        t.http
          .post('/api/ai/generate')
          .set(u.auth)
          .send(part({ uploadId: r.id })),
      'upload URL': (r) =>
        t.http
          .post('/api/ai/generate')
          .set(u.auth)
          .send(part({ url: `/uploads/${r.name}` })),
      '/v1 image_url': (r) =>
        t.http
          .post('/v1/chat/completions')
          .set({ Authorization: `Bearer ${key}` })
          .send({
            model: 'gpt-4o-mini',
            messages: [
              {
                role: 'user',
                content: [{ type: 'image_url', image_url: { url: `/uploads/${r.name}` } }],
              },
            ],
          }),
      '/api/ai/chat file part': (r) =>
        t.http
          .post('/api/ai/chat')
          .set(u.auth)
          .send({
            id: '7a1c1f9e-0a4e-4bd5-9a53-0d6f3b0d2c72',
            modelId: 'gpt-4o-mini',
            messages: [
              {
                id: 'm1',
                role: 'user',
                parts: [{ type: 'file', mediaType: 'image/png', url: `/uploads/${r.name}` }],
              },
            ],
          }),
    };
    for (const [path, send] of Object.entries(paths)) {
      const foreign = await send({ id: theirs, name: filename });
      const unknown = await send({ id: unknownId, name: unknownName });
      expect({ path, status: foreign.status }).toEqual({ path, status: 404 });
      expect({ path, body: unknown.body }).toEqual({ path, body: foreign.body });
      for (const leak of [theirs, filename, unknownId, unknownName])
        expect({ path, body: JSON.stringify(foreign.body) }).toEqual({
          path,
          body: expect.not.stringContaining(leak),
        });
    }
    expect(p.openai.requests).toHaveLength(0);
  });

  it('takes data URLs and URLs of our uploads (generate, /v1, /api/ai/chat); refuses other hosts, never fetching them', async () => {
    const u = await newUser(t, { credits: 1000 });
    const id = await upload(u);
    const [{ filename }] = await t.db.query('SELECT filename FROM uploads WHERE id = $1', [id]);
    const dataUrl = `data:image/png;base64,${b64}`;
    const withUrl = (url: string) => ({
      modelId: 'gpt-4o-mini',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Look' },
            { type: 'image', url },
          ],
        },
      ],
    });
    const sent = () => JSON.stringify(p.openai.requests.at(-1)?.body);

    // A data URL is sent as it is and not saved; our upload's URL (relative, or absolute on
    // APP_BASE_URL) is the upload, saved as the message's attachment.
    const inline = await t.http.post('/api/ai/generate').set(u.auth).send(withUrl(dataUrl));
    expect(inline.status).toBe(200);
    expect(sent()).toContain(b64);
    const none = await t.db.query(
      `SELECT 1 FROM message_attachments a JOIN messages m ON m.id = a."messageId" WHERE m."chatId" = $1`,
      [inline.body.chatId],
    );
    expect(none).toHaveLength(0);
    for (const url of [
      `/uploads/${filename}`,
      `http://localhost:3000/uploads/${filename}?exp=1&sig=x`,
    ]) {
      const res = await t.http.post('/api/ai/generate').set(u.auth).send(withUrl(url));
      expect(res.status).toBe(200);
      expect(sent()).toContain(b64);
    }

    // Bytes that are not what the data URL says, and anything remote, are 400 before any call.
    const calls = p.openai.requests.length;
    const fake = `data:image/png;base64,${Buffer.from('not a png at all').toString('base64')}`;
    for (const url of [fake, 'https://example.com/cat.png', 'http://169.254.169.254/x.png']) {
      const res = await t.http.post('/api/ai/generate').set(u.auth).send(withUrl(url));
      expect({ url, status: res.status }).toEqual({ url, status: 400 });
    }
    expect(p.openai.requests).toHaveLength(calls);

    // The OpenAI wire: image_url parts.
    const { key } = (await t.http.post('/api/keys').set(u.auth).send({ name: 'sdk' }).expect(201))
      .body;
    const v1 = await t.http
      .post('/v1/chat/completions')
      .set({ Authorization: `Bearer ${key}` })
      .send({
        model: 'gpt-4o-mini',
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'Look' },
              { type: 'image_url', image_url: { url: dataUrl } },
            ],
          },
        ],
      });
    expect(v1.status).toBe(200);
    expect(p.openai.requests.at(-1)?.body.messages[0].content[1]).toEqual({
      type: 'image_url',
      image_url: { url: dataUrl },
    });

    // The AI SDK chat transport: a user's image file part.
    const chat = await t.http
      .post('/api/ai/chat')
      .set(u.auth)
      .send({
        id: '7a1c1f9e-0a4e-4bd5-9a53-0d6f3b0d2c71',
        modelId: 'claude-haiku-4-5',
        messages: [
          {
            id: 'm1',
            role: 'user',
            parts: [
              { type: 'text', text: 'Look' },
              { type: 'file', mediaType: 'image/png', url: `/uploads/${filename}` },
            ],
          },
        ],
      });
    expect(chat.status).toBe(200);
    expect(p.anthropic.requests.at(-1)?.body.messages[0].content[0]).toEqual({
      type: 'image',
      source: { type: 'base64', media_type: 'image/png', data: b64 },
    });
  });
});
