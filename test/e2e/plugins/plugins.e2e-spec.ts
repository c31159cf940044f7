import type { ApiScope } from '../../../src/common/auth/api-scopes';
import { ERROR_TABLE } from '../../../src/app-errors';
import { AppError } from '../../../src/common/errors/app-error';
import { PluginsErrorCode } from '../../../src/plugins/plugins.errors';
import { PluginsService } from '../../../src/plugins/plugins.service';
import type { ToolBox } from '../../../src/plugins/tool.types';
import { HUGE_BYTES, McpTestServer } from '../../servers/mcp-server';
import { newChat, newUser, sessionOf, type TestUser } from '../../support/factories';
import { createTestApp, type TestApp } from '../../support/test-app';

const SECRET = 'Bearer mcp-s3cret-0123456789';
const TIMEOUT_MS = 800;

/**
 * Built-in and MCP plugins, their registration and the tool box, against a real MCP
 * server allowed on loopback (PLUGIN_ALLOWED_HOSTS); the SSRF refusals are in plugins-ssrf.
 */
describe('Plugins', () => {
  let t: TestApp;
  let mcp: McpTestServer;
  let admin: TestUser;
  let user: TestUser;
  let pluginId: string;
  /** A new chat of the caller's: no one else reads the tools' output. */
  const alone = { onlyCallerReads: async () => true };
  const toolBox = (u: TestUser, names: string[]): Promise<ToolBox> =>
    t.app.get(PluginsService).toolBox(sessionOf(u), names, alone);
  const codeOf = (p: Promise<unknown>) =>
    p.then(
      () => 'resolved',
      (e: AppError) => `${ERROR_TABLE[e.code].status} ${e.code}`,
    );

  beforeAll(async () => {
    mcp = new McpTestServer();
    await mcp.start();
    t = await createTestApp({
      PLUGIN_ALLOWED_HOSTS: '127.0.0.1',
      PLUGIN_TOOL_TIMEOUT_MS: String(TIMEOUT_MS),
    });
    admin = await newUser(t, { role: 'ADMIN' });
    user = await newUser(t);
  });
  afterAll(async () => {
    await t.close();
    await mcp.stop();
  });

  it('an admin registers an MCP server: tools discovered, audited, the secret header sealed', async () => {
    const res = await t.http
      .post('/api/plugins')
      .set(admin.auth)
      .send({ name: 'demo', url: mcp.url, headers: { Authorization: SECRET, 'X-Team': 'blue' } })
      .expect(201);
    pluginId = res.body.id;
    expect(res.body).toMatchObject({
      name: 'demo',
      url: mcp.url,
      headerNames: ['Authorization', 'X-Team'],
      enabled: true,
    });
    expect(res.body.tools.map((x: { name: string }) => x.name).sort()).toEqual([
      'demo__echo',
      'demo__fails',
      'demo__huge',
      'demo__slow',
    ]);
    expect(JSON.stringify(res.body)).not.toContain('s3cret');

    // The header reached the server on every request of the registration.
    expect(mcp.requests.length).toBeGreaterThan(0);
    expect(mcp.requests.every((r) => r.headers.authorization === SECRET)).toBe(true);
    expect(mcp.requests.every((r) => r.headers['x-team'] === 'blue')).toBe(true);

    // Sealed at rest: neither the value nor the name in plaintext.
    const [row] = await t.db.query(`SELECT headers FROM plugins WHERE id = $1`, [pluginId]);
    expect(row.headers).toMatch(/^v1\./);
    expect(row.headers).not.toContain('s3cret');
    expect(row.headers).not.toContain('Authorization');

    const audit = await t.db.query(`SELECT * FROM audit_events WHERE "targetId" = $1`, [pluginId]);
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({
      action: 'plugin.register',
      actorId: admin.user.id,
      actorType: 'admin',
      targetType: 'plugin',
      details: {
        name: 'demo',
        url: mcp.url,
        headerNames: ['Authorization', 'X-Team'],
        enabled: true,
      },
    });
  });

  it('lists built-ins and enabled MCP plugins to any user, never the headers', async () => {
    const res = await t.http.get('/api/plugins').set(user.auth).expect(200);
    const byName = Object.fromEntries(res.body.plugins.map((p: { name: string }) => [p.name, p]));
    expect(Object.keys(byName)).toEqual(
      expect.arrayContaining(['calculator', 'current_time', 'search_my_chats', 'demo']),
    );
    expect(byName.calculator).toMatchObject({ kind: 'builtin', available: true });
    expect(byName.calculator.tools[0]).toMatchObject({
      name: 'calculator',
      parameters: { type: 'object', required: ['expression'] },
    });
    expect(byName.demo).toMatchObject({ kind: 'mcp', id: pluginId, available: true });
    const echo = byName.demo.tools.find((x: { name: string }) => x.name === 'demo__echo');
    expect(echo).toMatchObject({
      description: 'Echoes the text back',
      parameters: { type: 'object', properties: { text: { type: 'string' } } },
    });
    expect(JSON.stringify(res.body)).not.toContain('s3cret');
    expect(JSON.stringify(res.body)).not.toContain('Authorization');
  });

  it('caches a server tool list: a second listing makes no request', async () => {
    const before = mcp.requests.length;
    await t.http.get('/api/plugins').set(user.auth).expect(200);
    await toolBox(user, ['demo']);
    expect(mcp.requests.length).toBe(before);
  });

  it('refuses plugin administration to non-admins (403)', async () => {
    await t.http
      .post('/api/plugins')
      .set(user.auth)
      .send({ name: 'mine', url: mcp.url })
      .expect(403);
    await t.http
      .patch(`/api/plugins/${pluginId}`)
      .set(user.auth)
      .send({ enabled: false })
      .expect(403);
    await t.http.delete(`/api/plugins/${pluginId}`).set(user.auth).expect(403);
    expect(await t.db.query(`SELECT name FROM plugins`)).toEqual([{ name: 'demo' }]);
  });

  it('runs MCP tools through the tool box: echo, timeout, truncation, error results', async () => {
    const box = await toolBox(user, ['demo', 'calculator']);
    expect(box.definitions.map((d) => d.name).sort()).toEqual([
      'calculator',
      'demo__echo',
      'demo__fails',
      'demo__huge',
      'demo__slow',
    ]);
    const call = (name: string, args: Record<string, unknown> = {}) =>
      box.call({ id: `call-${name}`, name, arguments: args });

    expect(await call('demo__echo', { text: 'hi there' })).toEqual({
      ok: true,
      content: 'echo: hi there',
      summary: 'echo: hi there',
    });

    // The tool would answer long after this test's own timeout: only the tool timeout ends it.
    const slow = await call('demo__slow', { ms: 600_000 });
    expect(slow).toMatchObject({
      ok: false,
      content: expect.stringMatching(/timed out after 800 ms/),
    });

    const huge = await call('demo__huge');
    expect(huge.ok).toBe(true);
    expect(Buffer.byteLength(huge.content)).toBeLessThanOrEqual(32 * 1024);
    expect(huge.content).toMatch(
      new RegExp(`\\n\\[truncated: ${HUGE_BYTES} bytes, first \\d+ shown\\]$`),
    );
    expect(huge.summary.length).toBeLessThanOrEqual(200);

    expect(await call('demo__fails')).toEqual({
      ok: false,
      content: 'it failed on purpose',
      summary: 'it failed on purpose',
    });
    expect(await call('demo__echo', { text: 42 })).toMatchObject({ ok: false });
    expect(await call('demo__nope')).toMatchObject({
      ok: false,
      content: 'Unknown tool "demo__nope"',
    });
    expect(await call('calculator', { expression: '0.1 + 0.2' })).toMatchObject({
      ok: true,
      content: '0.3',
    });
    expect(await call('calculator', { expression: '1/0' })).toMatchObject({ ok: false });

    // The caller's signal cancels a call.
    const abort = new AbortController();
    const pending = box.call(
      { id: 'c', name: 'demo__slow', arguments: { ms: 5000 } },
      abort.signal,
    );
    setTimeout(() => abort.abort(), 100);
    expect(await pending).toMatchObject({ ok: false, content: expect.stringMatching(/cancelled/) });
  });

  it('search_my_chats finds the caller’s chats only (keyword mode, no credits)', async () => {
    const other = await newUser(t);
    await newChat(t, user, { title: 'Trip planning', messages: ['Pack the zanzibar guidebook'] });
    await newChat(t, other, { title: 'Not yours', messages: ['zanzibar secrets of another user'] });
    const box = await toolBox(user, ['search_my_chats']);
    const res = await box.call({
      id: 's',
      name: 'search_my_chats',
      arguments: { query: 'zanzibar' },
    });
    expect(res.ok).toBe(true);
    const hits = JSON.parse(res.content);
    expect(hits).toHaveLength(1);
    expect(hits[0]).toMatchObject({
      title: 'Trip planning',
      snippet: expect.stringContaining('zanzibar'),
    });
    expect(res.summary).toBe('1 result for "zanzibar"');
    const [{ credits }] = await t.db.query(`SELECT credits FROM users WHERE id = $1`, [
      user.user.id,
    ]);
    expect(credits).toBe(user.user.credits);
  });

  it('private-data tools: a key needs chats:read, and the chat must be read by the caller alone', async () => {
    const plugins = t.app.get(PluginsService);
    const key = (scopes: ApiScope[]) => ({ ...sessionOf(user), apiKey: { id: 'k', scopes } });
    expect(await codeOf(plugins.toolBox(key(['ai']), ['search_my_chats'], alone))).toBe(
      '403 INSUFFICIENT_SCOPE',
    );
    expect(
      await codeOf(plugins.toolBox(key(['ai', 'chats:read']), ['search_my_chats'], alone)),
    ).toBe('resolved');
    // Tools reading only their arguments need no scope of their own.
    expect(await codeOf(plugins.toolBox(key(['ai']), ['calculator'], alone))).toBe('resolved');

    let asked = 0;
    const shared = {
      onlyCallerReads: async () => {
        asked++;
        return false;
      },
    };
    const refused = await plugins
      .toolBox(sessionOf(user), ['calculator', 'search_my_chats'], shared)
      .catch((e: AppError) => e);
    expect(refused).toBeInstanceOf(AppError);
    expect([(refused as AppError).code, (refused as AppError).details]).toEqual([
      PluginsErrorCode.PLUGIN_NOT_ALLOWED,
      { plugins: ['search_my_chats'] },
    ]);
    // The chat's readers are looked up only when a private-data tool is wanted.
    expect(
      await codeOf(plugins.toolBox(sessionOf(user), ['calculator', 'current_time'], shared)),
    ).toBe('resolved');
    expect(asked).toBe(1);
  });

  it('refuses an unknown plugin name with 400 UNKNOWN_PLUGIN', async () => {
    expect(await codeOf(toolBox(user, ['calculator', 'nope']))).toBe('400 UNKNOWN_PLUGIN');
    const err = await toolBox(user, ['nope']).catch((e: AppError) => e);
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).details).toEqual({ plugins: ['nope'] });
  });

  it('refuses a server that does not answer (422), a taken or built-in name (409)', async () => {
    const res = await t.http
      .post('/api/plugins')
      .set(admin.auth)
      .send({ name: 'down', url: 'http://127.0.0.1:9/mcp' })
      .expect(422);
    expect(res.body.code).toBe(PluginsErrorCode.PLUGIN_UNREACHABLE);
    for (const name of ['demo', 'calculator']) {
      await t.http.post('/api/plugins').set(admin.auth).send({ name, url: mcp.url }).expect(409);
    }
    await t.http
      .post('/api/plugins')
      .set(admin.auth)
      .send({ name: 'Bad Name', url: mcp.url })
      .expect(400);
    await t.http
      .post('/api/plugins')
      .set(admin.auth)
      .send({ name: 'hdr', url: mcp.url, headers: { 'Bad Header': 'x' } })
      .expect(400);
    expect(
      (await t.db.query(`SELECT name FROM plugins`)).map((r: { name: string }) => r.name),
    ).toEqual(['demo']);
  });

  it('a disabled plugin is not listed and not offered; enabling contacts the server again', async () => {
    const off = await t.http
      .patch(`/api/plugins/${pluginId}`)
      .set(admin.auth)
      .send({ enabled: false })
      .expect(200);
    expect(off.body).toMatchObject({ enabled: false, headerNames: ['Authorization', 'X-Team'] });
    const list = await t.http.get('/api/plugins').set(user.auth).expect(200);
    expect(list.body.plugins.map((p: { name: string }) => p.name)).not.toContain('demo');
    expect(await codeOf(toolBox(user, ['demo']))).toBe('400 UNKNOWN_PLUGIN');

    const before = mcp.requests.length;
    const on = await t.http
      .patch(`/api/plugins/${pluginId}`)
      .set(admin.auth)
      .send({ enabled: true, headers: { Authorization: 'Bearer rotated' } })
      .expect(200);
    expect(on.body).toMatchObject({ enabled: true, headerNames: ['Authorization'] });
    expect(on.body.tools).toHaveLength(4);
    expect(
      mcp.requests.slice(before).every((r) => r.headers.authorization === 'Bearer rotated'),
    ).toBe(true);

    // A change that breaks the plugin is refused and changes nothing.
    await t.http
      .patch(`/api/plugins/${pluginId}`)
      .set(admin.auth)
      .send({ url: 'http://127.0.0.1:9/mcp' })
      .expect(422);
    const [row] = await t.db.query(`SELECT url FROM plugins WHERE id = $1`, [pluginId]);
    expect(row.url).toBe(mcp.url);
  });

  it('deletes a plugin (admin)', async () => {
    await t.http
      .delete(`/api/plugins/${pluginId}`)
      .set(admin.auth)
      .expect(200, { id: pluginId, deleted: true });
    await t.http.delete(`/api/plugins/${pluginId}`).set(admin.auth).expect(404);
    expect(await codeOf(toolBox(user, ['demo']))).toBe('400 UNKNOWN_PLUGIN');
  });
});
