import { randomUUID } from 'node:crypto';
import { SecretBox } from '../../../src/common/crypto/secret-box';
import { AppError } from '../../../src/common/errors/app-error';
import { PluginsErrorCode } from '../../../src/plugins/plugins.errors';
import { sealHeaders } from '../../../src/plugins/plugin-headers';
import { PluginsService } from '../../../src/plugins/plugins.service';
import { McpTestServer } from '../../servers/mcp-server';
import { newUser, sessionOf, type TestUser } from '../../support/factories';
import { createTestApp, type TestApp } from '../../support/test-app';

/**
 * The SSRF guard of plugin registration, with an empty PLUGIN_ALLOWED_HOSTS. A real
 * MCP server listens on loopback: reachable, yet refused, as is every internal address.
 */
describe('Plugins: SSRF guard', () => {
  let t: TestApp;
  let mcp: McpTestServer;
  let admin: TestUser;

  beforeAll(async () => {
    mcp = new McpTestServer();
    await mcp.start();
    t = await createTestApp({ PLUGIN_ALLOWED_HOSTS: '' });
    admin = await newUser(t, { role: 'ADMIN' });
  });
  afterAll(async () => {
    await t.close();
    await mcp.stop();
  });

  it.each([
    ['a loopback server over http', () => mcp.url, /https is required/],
    ['the same server over https', () => mcp.url.replace('http:', 'https:'), /loopback address/],
    [
      'a name resolving to loopback (checked when connecting)',
      () => `https://localhost:${mcp.port}/mcp`,
      /localhost resolves to a loopback address/,
    ],
    ['cloud metadata over http', () => 'http://169.254.169.254/', /https is required/],
    ['cloud metadata', () => 'https://169.254.169.254/latest/meta-data', /link-local address/],
    ['a private network', () => 'https://10.0.0.1/', /private address/],
    ['IPv6 loopback', () => 'https://[::1]/mcp', /loopback address/],
    ['IPv4-mapped loopback', () => 'https://[::ffff:127.0.0.1]/mcp', /loopback address/],
    ['CGNAT', () => 'https://100.64.0.1/', /cgnat address/],
    ['credentials in the URL', () => 'https://u:p@example.com/mcp', /credentials/],
  ])('refuses %s: 400 PLUGIN_URL_FORBIDDEN, nothing saved', async (_what, url, reason) => {
    const res = await t.http
      .post('/api/plugins')
      .set(admin.auth)
      .send({ name: 'bad', url: url() })
      .expect(400);
    expect(res.body.code).toBe(PluginsErrorCode.PLUGIN_URL_FORBIDDEN);
    expect(res.body.error).toMatch(reason);
    expect(await t.db.query(`SELECT 1 FROM plugins`)).toEqual([]);
    expect(await t.db.query(`SELECT 1 FROM audit_events WHERE action = 'plugin.register'`)).toEqual(
      [],
    );
  });

  it('checks again at every connection: a stored plugin on a refused address is never contacted', async () => {
    // As if registered while the address was allowed (or resolved elsewhere): rows are not trusted.
    for (const [name, url] of [
      ['sneaky', mcp.url],
      ['rebound', `https://localhost:${mcp.port}/mcp`],
    ]) {
      const id = randomUUID();
      await t.db.query(
        `INSERT INTO plugins (id, name, url, headers, enabled) VALUES ($1, $2, $3, $4, true)`,
        [id, name, url, sealHeaders(t.app.get(SecretBox), id, {})],
      );
    }
    const list = await t.http.get('/api/plugins').set(admin.auth).expect(200);
    expect(list.body.plugins.filter((p: { kind: string }) => p.kind === 'mcp')).toEqual([
      expect.objectContaining({ name: 'rebound', available: false, tools: [] }),
      expect.objectContaining({ name: 'sneaky', available: false, tools: [] }),
    ]);
    for (const name of ['sneaky', 'rebound']) {
      const err = await t.app
        .get(PluginsService)
        .toolBox(sessionOf(admin), [name], { onlyCallerReads: async () => true })
        .catch((e: AppError) => e);
      expect(err).toBeInstanceOf(AppError);
      expect((err as AppError).code).toBe(PluginsErrorCode.PLUGIN_URL_FORBIDDEN);
    }
  });

  it('never contacted the loopback server', () => {
    expect(mcp.requests).toEqual([]);
  });
});
