import OpenAI from 'openai';
import { startProviders, type Providers } from '../../support/providers';
import { newUser, type TestUser } from '../../support/factories';
import { createTestApp, type TestApp } from '../../support/test-app';
import { sdkClient, v1BaseUrl } from './openai-responses.helpers';

/**
 * The life of a stored response (`store: true` on `/v1/responses`): who may read and delete it,
 * and that deleting it, or the chat it was saved to, forgets its text for good.
 */
describe('OpenAI Responses API: stored responses', () => {
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

  const ALL = ['ai', 'chats:read', 'chats:write'];
  const clientFor = (u: TestUser, scopes?: string[]) => sdkClient(t, baseURL, u, scopes);
  /** What `promise` rejects with, else what it resolves to. */
  const error = (promise: Promise<unknown>) => promise.catch((e: unknown) => e as unknown);
  const storedIds = async (userId: string): Promise<string[]> =>
    (await t.db.query(`SELECT id FROM responses WHERE "userId" = $1 ORDER BY id`, [userId])).map(
      (r: { id: string }) => r.id,
    );
  const store = (client: OpenAI) =>
    client.responses.create({ model: 'gpt-4o', input: 'Remember: 42.', store: true });

  it('deletes a stored response: it can no longer be retrieved or continued; its chat stays', async () => {
    const u = await newUser(t);
    const client = await clientFor(u, ALL);
    const kept = await store(client);
    const gone = await store(client);

    const res = await fetch(`${baseURL}/responses/${gone.id}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${client.apiKey}` },
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ id: gone.id, object: 'response', deleted: true });
    await client.responses.delete(kept.id); // the SDK's own call

    expect(await storedIds(u.user.id)).toEqual([]);
    expect(await error(client.responses.retrieve(gone.id))).toBeInstanceOf(OpenAI.NotFoundError);
    const continued = await error(
      client.responses.create({
        model: 'gpt-4o',
        input: 'Which number?',
        previous_response_id: gone.id,
        store: true,
      }),
    );
    expect((continued as InstanceType<typeof OpenAI.BadRequestError>).code).toBe(
      'previous_response_not_found',
    );
    expect(await error(client.responses.delete(gone.id))).toBeInstanceOf(OpenAI.NotFoundError);
    const chats = await t.db.query(`SELECT id FROM chats WHERE "userId" = $1`, [u.user.id]);
    expect(chats).toHaveLength(2);
  });

  it("refuses another user's stored response with 404 to delete, and deletes nothing", async () => {
    const owner = await newUser(t);
    const other = await newUser(t);
    const stored = await store(await clientFor(owner, ALL));
    const otherClient = await clientFor(other, ALL);

    expect(await error(otherClient.responses.delete(stored.id))).toBeInstanceOf(
      OpenAI.NotFoundError,
    );
    expect(await storedIds(owner.user.id)).toEqual([stored.id]);
  });

  it('needs chats:read to read a stored response and chats:write to delete one (API keys)', async () => {
    const u = await newUser(t);
    const stored = await store(await clientFor(u, ALL));
    const aiOnly = await clientFor(u, ['ai']);
    const reader = await clientFor(u, ['ai', 'chats:read']);

    const read = await error(aiOnly.responses.retrieve(stored.id));
    expect(read).toBeInstanceOf(OpenAI.PermissionDeniedError);
    expect((read as InstanceType<typeof OpenAI.PermissionDeniedError>).code).toBe(
      'insufficient_scope',
    );
    expect((await reader.responses.retrieve(stored.id)).id).toBe(stored.id);
    expect(await error(reader.responses.delete(stored.id))).toBeInstanceOf(
      OpenAI.PermissionDeniedError,
    );
    expect(await storedIds(u.user.id)).toEqual([stored.id]);
  });

  it('forgets the stored responses of a chat the user deletes', async () => {
    const u = await newUser(t);
    const client = await clientFor(u, ALL);
    const stored = await store(client);
    const [{ chatId }] = await t.db.query(`SELECT "chatId" FROM responses WHERE id = $1`, [
      stored.id,
    ]);

    await t.http.delete(`/api/chats/${chatId}`).set(u.auth).expect(200);

    expect(await storedIds(u.user.id)).toEqual([]);
    expect(await error(client.responses.retrieve(stored.id))).toBeInstanceOf(OpenAI.NotFoundError);
  });

  it('writes a stored response in the statement that charges the call and saves its chat, whole or streamed', async () => {
    const u = await newUser(t);
    const client = await clientFor(u, ALL);
    const whole = await store(client);
    const stream = client.responses.stream({ model: 'gpt-4o', input: 'Again: 42.', store: true });
    const streamed = await stream.finalResponse();

    // One transaction wrote each response, its CONSUMPTION entry and its chat's messages (xmin):
    // no stored response can fail after its charge, and none is kept without one.
    const rows: { tx: string; cost: number; chatTx: string; chargeTx: string; charged: number }[] =
      await t.db.query(
        `SELECT r.xmin::text AS tx, (r.body ->> 'cost')::int AS cost,
           (SELECT min(m.xmin::text) FROM messages m WHERE m."chatId" = r."chatId") AS "chatTx",
           c.xmin::text AS "chargeTx", -c.amount AS charged
         FROM responses r JOIN credit_transactions c
           ON c.xmin = r.xmin AND c."userId" = r."userId" AND c.type = 'CONSUMPTION'
         WHERE r.id = ANY($1)`,
        [[whole.id, streamed.id]],
      );
    expect(rows).toHaveLength(2);
    for (const row of rows) {
      expect(row.chargeTx).toBe(row.tx);
      expect(row.chatTx).toBe(row.tx);
      expect(row.cost).toBe(row.charged);
    }
  });
});
