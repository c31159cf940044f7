import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { mailFile, signUp, uniqueEmail } from '../../support/accounts';
import { createTestApp, type TestApp } from '../../support/test-app';

/**
 * Development without SMTP_URL and without FRONTEND_DIR: each mail is also a `.txt` file with
 * its link as written, and the verification link opens a page whose button verifies (a form
 * POST), never the GET alone, answered as a page in the link's language.
 */
describe('verification page (no frontend, mails as files)', () => {
  let t: TestApp;
  beforeAll(async () => (t = await createTestApp()));
  afterAll(() => t.close());

  const pathOf = (link: string) => {
    const url = new URL(link);
    return `${url.pathname}${url.search}`;
  };
  const bonusGranted = async (auth: Record<string, string>) =>
    (await t.http.get('/api/credits').set(auth).expect(200)).body.balance === 100;

  it('writes a .txt copy beside the .eml, with the link as it is', async () => {
    const u = await signUp(t);
    const { link, token } = await mailFile(t, u.email);
    const names = await readdir(t.mailDir);
    const txt = names.filter((n) => n.endsWith('.txt'));
    const texts = await Promise.all(txt.map((n) => readFile(join(t.mailDir, n), 'utf8')));
    const mine = texts.find((s) => s.includes(`To: ${u.email}`))!;
    expect(mine).toContain(`Link: ${link}`);
    expect(mine).toContain(`token=${token}`);
    expect(mine).not.toContain('=3D');
    const stem = txt[texts.indexOf(mine)].replace(/\.txt$/, '');
    expect(names).toContain(`${stem}.eml`);
  });

  it('shows a button on GET, verifies on its POST only, then says the link is used', async () => {
    const u = await signUp(t);
    const { link, token } = await mailFile(t, u.email);
    const page = await t.http.get(pathOf(link)).expect(200);
    expect(page.headers['content-type']).toMatch(/text\/html/);
    expect(page.headers['content-security-policy']).toContain("form-action 'self'");
    expect(page.text).toContain('<form method="post" action="/en/auth/verify-email">');
    expect(page.text).toContain(`name="token" value="${token}"`);
    await t.http.get(pathOf(link)).expect(200);
    expect(await bonusGranted(u.auth)).toBe(false);

    const done = await t.http
      .post('/en/auth/verify-email')
      .type('form')
      .send({ token })
      .expect(200);
    expect(done.text).toContain('<h1>Email verified</h1>');
    expect(await bonusGranted(u.auth)).toBe(true);

    const again = await t.http.post('/en/auth/verify-email').type('form').send({ token });
    expect(again.status).toBe(400);
    expect(again.text).toContain('<h1>Link not valid</h1>');
  });

  it('speaks Chinese under /zh, and says so for a link without a token', async () => {
    const u = await signUp(t, uniqueEmail(), { headers: { 'Accept-Language': 'zh-CN' } });
    const { link, token } = await mailFile(t, u.email);
    expect(link).toContain('/zh/auth/verify-email?token=');
    const page = await t.http.get(pathOf(link)).expect(200);
    expect(page.text).toContain('<html lang="zh">');
    expect(page.text).toContain('验证我的邮箱');
    const done = await t.http.post('/zh/auth/verify-email').type('form').send({ token });
    expect(done.status).toBe(200);
    expect(done.text).toContain('<h1>邮箱已验证</h1>');

    const missing = await t.http.get('/en/auth/verify-email').expect(200);
    expect(missing.text).toContain('<h1>Link incomplete</h1>');
    expect(missing.text).not.toContain('<form');
    const empty = await t.http.post('/zh/auth/verify-email').type('form').send({});
    expect(empty.status).toBe(400);
    expect(empty.text).toContain('链接不完整');
  });

  it('escapes the token it echoes and answers 404 for another locale', async () => {
    const page = await t.http.get('/en/auth/verify-email?token=%22%3E%3Cscript%3E').expect(200);
    expect(page.text).toContain('value="&quot;&gt;&lt;script&gt;"');
    expect(page.text).not.toContain('<script>');
    await t.http.post('/fr/auth/verify-email').type('form').send({ token: 'x' }).expect(404);
  });
});
