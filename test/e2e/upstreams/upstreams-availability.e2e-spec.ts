import { TABLE_CACHE_MS } from '../../../src/upstreams/upstream-table';
import { ledgerOf, newUser, type TestUser } from '../../support/factories';
import { startProviders, type Providers } from '../../support/providers';
import { HandClock } from '../../support/hand-clock';
import { createTestApp, type TestApp } from '../../support/test-app';

/**
 * A provider without an environment key: its models become available when an upstream row
 * serves them, and unavailable again when none does, here and (after the copy's period) when
 * another instance changed the rows.
 */
describe('Upstreams: models available through upstream rows', () => {
  let p: Providers;
  let t: TestApp;
  let admin: TestUser;
  let user: TestUser;
  const clock = new HandClock();
  const claude = { modelId: 'claude-haiku-4-5', messages: [{ role: 'user', content: 'Hi' }] };
  const generate = () => t.http.post('/api/ai/generate').set(user.auth).send(claude);
  const listed = async () =>
    (await t.http.get('/api/ai/models').expect(200)).body.models.find(
      (m: { id: string }) => m.id === claude.modelId,
    ).available;

  beforeAll(async () => {
    p = await startProviders();
    t = await createTestApp({ ...p.env, ANTHROPIC_API_KEY: '' }, { clock });
    admin = await newUser(t, { role: 'ADMIN' });
    user = await newUser(t, { credits: 100 });
  });
  afterAll(async () => {
    await t.close();
    await p.stop();
  });

  it('serves a model once an upstream row serves it, and refuses it again when none does', async () => {
    const refused = await generate().expect(400);
    expect(refused.body.code).toBe('UNKNOWN_MODEL');
    expect(await listed()).toBe(false);

    const created = await t.http
      .post('/api/admin/upstreams')
      .set(admin.auth)
      .send({
        provider: 'anthropic',
        name: 'claude',
        baseUrl: p.anthropic.url,
        apiKey: 'sk-ant-row',
      })
      .expect(201);
    expect(await listed()).toBe(true);
    const res = await generate().expect(200);
    expect(res.body.modelId).toBe(claude.modelId);
    expect(p.anthropic.requests).toHaveLength(1);
    // The row's key, however the SDK sends it (SDK 1.12: `Authorization: Bearer`).
    const sent = p.anthropic.requests[0].headers;
    expect(sent['x-api-key'] ?? sent.authorization?.replace(/^Bearer /, '')).toBe('sk-ant-row');
    const books = await ledgerOf(t, user.user.id);
    expect(books.credits).toBe(books.ledgerSum);

    // Another instance disables the row: this one reads the rows again once its copy is older
    // than its period, before it requires the model.
    await t.db.query(`UPDATE upstreams SET enabled = false WHERE id = $1`, [created.body.id]);
    await generate().expect(200);
    expect(p.anthropic.requests).toHaveLength(2);
    clock.tick(TABLE_CACHE_MS);
    expect((await generate().expect(400)).body.code).toBe('UNKNOWN_MODEL');
    expect(p.anthropic.requests).toHaveLength(2);
    expect(await listed()).toBe(false);
  });
});
