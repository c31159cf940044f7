import { OpenAiTestServer } from '../../servers/openai-server';
import { newUser, type TestUser } from '../../support/factories';
import { createTestApp, type TestApp } from '../../support/test-app';

const KEY_1 = 'sk-upstream-first-0123456789';
const KEY_2 = 'sk-upstream-second-0123456789';

/**
 * An upstream's key stays with its host: moving `baseUrl` to another origin needs the key for
 * it in the same request, so `/test` (or routing) never sends the stored key to a new host. And
 * `baseUrl` may not name link-local or cloud metadata addresses (UPSTREAM_ALLOW_PRIVATE; by
 * default loopback and private networks only, which is how these tests reach local servers).
 */
describe('Upstreams admin: keys stay with their host, addresses are checked', () => {
  let t: TestApp;
  let home: OpenAiTestServer;
  let elsewhere: OpenAiTestServer;
  let admin: TestUser;

  const post = (body: object) => t.http.post('/api/admin/upstreams').set(admin.auth).send(body);
  const patch = (id: string, body: object) =>
    t.http.patch(`/api/admin/upstreams/${id}`).set(admin.auth).send(body);
  const test = (id: string) =>
    t.http.post(`/api/admin/upstreams/${id}/test`).set(admin.auth).expect(200);
  const state = async () => ({
    rows: await t.db.query(`SELECT name, "baseUrl", "apiKeySealed" FROM upstreams ORDER BY name`),
    audit: (await t.db.query(`SELECT count(*)::int AS n FROM audit_events`))[0].n,
  });
  const authorizations = (s: OpenAiTestServer) => s.requests.map((r) => r.headers.authorization);

  beforeAll(async () => {
    home = await new OpenAiTestServer().start();
    elsewhere = await new OpenAiTestServer().start();
    t = await createTestApp({
      OPENAI_API_KEY: 'sk-env-openai-0123456789',
      OPENAI_BASE_URL: home.url,
    });
    admin = await newUser(t, { role: 'ADMIN' });
  });
  afterAll(async () => {
    await t.close();
    await home.stop();
    await elsewhere.stop();
  });
  beforeEach(() => {
    home.reset();
    elsewhere.reset();
  });

  it('refuses to move a keyed upstream to another origin without a new key (400 UPSTREAM_KEY_REQUIRED); the old key never reaches the new host', async () => {
    const { body } = await post({
      provider: 'openai',
      name: 'keyed',
      baseUrl: home.url,
      apiKey: KEY_1,
      models: ['gpt-4o-mini'],
    }).expect(201);
    const before = await state();

    const moved = await patch(body.id, { baseUrl: elsewhere.url });
    expect([moved.status, moved.body.code]).toEqual([400, 'UPSTREAM_KEY_REQUIRED']);
    expect(await state()).toEqual(before);
    await test(body.id);
    expect(authorizations(home)).toEqual([`Bearer ${KEY_1}`]);
    expect(elsewhere.requests).toHaveLength(0);

    // Same origin, another path: the key stays.
    await patch(body.id, { baseUrl: `${home.url}/` }).expect(200);
    // Another origin with its own key: that key goes there.
    await patch(body.id, { baseUrl: elsewhere.url, apiKey: KEY_2 }).expect(200);
    await test(body.id);
    expect(authorizations(elsewhere)).toEqual([`Bearer ${KEY_2}`]);
    // Or with the key removed (`apiKey: null`): nothing is sent as a key.
    await patch(body.id, { baseUrl: home.url, apiKey: null }).expect(200);
    expect(
      (await t.http.get(`/api/admin/upstreams/${body.id}`).set(admin.auth)).body.hasApiKey,
    ).toBe(false);
    // An upstream without a key moves freely.
    await patch(body.id, { baseUrl: elsewhere.url }).expect(200);
    expect(authorizations(elsewhere).join()).not.toContain(KEY_1);
  });

  it('refuses link-local and cloud metadata addresses in baseUrl (400 UPSTREAM_URL_FORBIDDEN) and changes nothing; loopback and private networks are allowed by default', async () => {
    const { body } = await post({
      provider: 'openai-compatible',
      name: 'local',
      baseUrl: 'http://127.0.0.1:9/v1',
      models: ['gpt-4o-mini'],
    }).expect(201);
    const before = await state();
    const refused = [
      'http://169.254.169.254/latest',
      'http://169.254.170.2/v2',
      'http://[fe80::1]/v1',
      'http://[fd00:ec2::254]/v1',
      'http://[::ffff:169.254.169.254]/v1',
      'http://100.100.100.200/v1',
      'http://metadata.google.internal/v1',
      'http://METADATA.GOOGLE.INTERNAL/v1',
      'http://0.0.0.0:8080/v1',
      'http://[::]:8080/v1',
    ];
    const got: Record<string, string> = {};
    for (const baseUrl of refused) {
      const created = await post({ provider: 'openai-compatible', name: 'bad', baseUrl });
      const changed = await patch(body.id, { baseUrl });
      got[baseUrl] =
        `${created.status} ${created.body.code} / ${changed.status} ${changed.body.code}`;
    }
    expect(got).toEqual(
      Object.fromEntries(
        refused.map((u) => [u, '400 UPSTREAM_URL_FORBIDDEN / 400 UPSTREAM_URL_FORBIDDEN']),
      ),
    );
    expect(await state()).toEqual(before);

    for (const baseUrl of [
      'http://localhost:9/v1',
      'http://[::1]:9/v1',
      'http://10.1.2.3/v1',
      'http://192.168.1.20:11434/v1',
      'http://[fd12:3456::1]/v1',
    ])
      expect([baseUrl, (await patch(body.id, { baseUrl })).status]).toEqual([baseUrl, 200]);
  });
});
