import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { newTeam, newUser, type TestUser } from '../../support/factories';
import { startProviders, type Providers } from '../../support/providers';
import { createTestApp, type TestApp } from '../../support/test-app';
import { PNG_BYTES } from '../../support/uploads';

/**
 * Upload access follows current rights: only an attachment made by the upload's owner opens the
 * file to the readers of that chat. A teammate who sends the owner's image again in a chat of
 * their own (the AI route saves it as that message's attachment) gains no lasting path to it:
 * once they leave the team they can neither download it, nor see it in their chat, nor send it
 * on; and readers of the chat they re-attached it in never could.
 */
describe('Uploads re-attached by someone else open no access path', () => {
  let t: TestApp;
  let p: Providers;

  beforeAll(async () => {
    p = await startProviders();
    t = await createTestApp({
      ...p.env,
      UPLOAD_DIR: mkdtempSync(join(tmpdir(), 'reattach-uploads-')),
      UPLOAD_MISS_LIMIT_PER_MINUTE: '1000',
    });
  });
  afterAll(async () => {
    await t?.close();
    await p?.stop();
  });
  beforeEach(() => p.reset());

  const ask = (uploadId: string, extra: object = {}) => ({
    modelId: 'gpt-4o-mini',
    messages: [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Look at this' },
          { type: 'image', uploadId },
        ],
      },
    ],
    ...extra,
  });
  const generate = (u: TestUser, body: object) =>
    t.http.post('/api/ai/generate').set(u.auth).send(body);
  /**
   * The attachments of a chat's messages as a chat read, the messages page and a chat list
   * (`listPath`: the caller's own chats, or a team's) return them.
   */
  const attachmentsSeen = async (u: TestUser, chatId: string, listPath = '/api/chats') => {
    const chat = await t.http.get(`/api/chats/${chatId}`).set(u.auth).expect(200);
    const page = await t.http.get(`/api/chats/${chatId}/messages`).set(u.auth).expect(200);
    const list = await t.http.get(listPath).set(u.auth).expect(200);
    const listed = list.body.data.find((c: { id: string }) => c.id === chatId);
    const of = (messages: { attachments?: unknown[] }[]) =>
      messages.flatMap((m) => m.attachments ?? []);
    return {
      chat: of(chat.body.data.messages),
      page: of(page.body.data),
      list: listed ? of(listed.messages) : undefined,
    };
  };

  it('closes the path of a re-attachment once the member is removed from the team', async () => {
    const [owner, member, outsider] = [
      await newUser(t, { credits: 1000 }),
      await newUser(t, { credits: 1000 }),
      await newUser(t, { credits: 1000 }),
    ];
    const team = await newTeam(t, owner, { members: [[member, 'MEMBER']] });
    const res = await t.http.post('/api/upload').set(owner.auth).attach('file', PNG_BYTES, 'a.png');
    const { id, filename } = res.body.data as { id: string; filename: string };
    const path = `/uploads/${filename}`;

    // The owner attaches it in a chat shared with the team: members read it there.
    const shared = await generate(owner, ask(id)).expect(200);
    await t.http
      .put(`/api/chats/${shared.body.chatId}/team`)
      .set(owner.auth)
      .send({ teamId: team.id })
      .expect(200);
    await t.http.get(path).set(member.auth).expect(200);
    expect((await attachmentsSeen(member, shared.body.chatId)).chat).toEqual([
      expect.objectContaining({ uploadId: id, url: expect.stringMatching(/[?&]sig=/) }),
    ]);

    // The member sends it again in a private chat, then shares that chat with a team of theirs.
    const own = await generate(member, ask(id)).expect(200);
    const [saved] = await t.db.query(
      `SELECT a."uploadId", m."userId" FROM message_attachments a
         JOIN messages m ON m.id = a."messageId" WHERE m."chatId" = $1`,
      [own.body.chatId],
    );
    expect(saved).toEqual({ uploadId: id, userId: member.user.id });
    const other = await newTeam(t, member, { members: [[outsider, 'MEMBER']] });
    await t.http
      .put(`/api/chats/${own.body.chatId}/team`)
      .set(member.auth)
      .send({ teamId: other.id })
      .expect(200);

    // The re-attachment opens nothing to the other team, and is shown to nobody with a link.
    const unknown = await t.http.get('/uploads/1747700000000-nothing.png').expect(404);
    const refused = await t.http.get(path).set(outsider.auth).expect(404);
    expect(refused.body).toEqual(unknown.body);
    expect(
      await attachmentsSeen(outsider, own.body.chatId, `/api/teams/${other.id}/chats`),
    ).toEqual({
      chat: [],
      page: [],
      list: [],
    });
    expect(await attachmentsSeen(member, own.body.chatId)).toEqual({
      chat: [],
      page: [],
      list: [],
    });
    const resent = await generate(outsider, ask(id));
    expect(resent.status).toBe(404);

    // Removed from the team: no download, no link in their own chat, no sending it on.
    await t.http.delete(`/api/teams/${team.id}/members/${member.user.id}`).set(owner.auth);
    const gone = await t.http.get(path).set(member.auth).expect(404);
    expect(gone.body).toEqual(unknown.body);
    expect(await attachmentsSeen(member, own.body.chatId)).toEqual({
      chat: [],
      page: [],
      list: [],
    });
    const calls = p.openai.requests.length;
    expect((await generate(member, ask(id))).status).toBe(404);
    expect((await generate(member, ask(id, { chatId: own.body.chatId }))).status).toBe(404);
    expect(p.openai.requests).toHaveLength(calls);

    // The owner keeps every right, and the owner's own attachment still shows its link.
    await t.http.get(path).set(owner.auth).expect(200);
    expect((await attachmentsSeen(owner, shared.body.chatId)).chat).toEqual([
      expect.objectContaining({ uploadId: id, url: expect.any(String) }),
    ]);
  });
});
