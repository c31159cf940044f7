import { newUser } from '../../support/factories';
import { createTestApp, type TestApp } from '../../support/test-app';

describe('English and Chinese', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  const message = (body: object, headers: Record<string, string> = {}, query = '') =>
    t.http.post(`/api/messages${query}`).set(headers).send(body).expect(200);

  it('answers POST /api/messages in the requested locale (spec)', async () => {
    expect((await message({ locale: 'en' })).body).toEqual({ message: 'The request succeeded.' });
    expect((await message({ locale: 'zh' })).body).toEqual({ message: '请求成功。' });
    expect((await message({ locale: 'fr' })).body.message).toBe('The request succeeded.');
    expect((await message({})).body.message).toBe('The request succeeded.');
  });

  it('takes the locale from body, then ?locale, x-locale, NEXT_LOCALE cookie, Accept-Language', async () => {
    const zh = '请求成功。';
    const en = 'The request succeeded.';
    expect((await message({ locale: 'en' }, { 'x-locale': 'zh' }, '?locale=zh')).body.message).toBe(
      en,
    );
    expect((await message({}, { 'x-locale': 'en' }, '?locale=zh')).body.message).toBe(zh);
    expect((await message({}, { 'x-locale': 'zh', Cookie: 'NEXT_LOCALE=en' })).body.message).toBe(
      zh,
    );
    expect(
      (await message({}, { Cookie: 'NEXT_LOCALE=zh', 'Accept-Language': 'en' })).body.message,
    ).toBe(zh);
    expect((await message({}, { 'Accept-Language': 'zh-CN,zh;q=0.9,en;q=0.8' })).body.message).toBe(
      zh,
    );
    expect((await message({}, { 'Accept-Language': 'fr-FR' })).body.message).toBe(en);
  });

  it('translates validation errors and keeps the code', async () => {
    const u = await newUser(t);
    const en = await t.http
      .post('/api/chats')
      .set(u.auth)
      .send({ title: 42, extra: 1 })
      .expect(400);
    const zh = await t.http
      .post('/api/chats')
      .set(u.auth)
      .set('Accept-Language', 'zh-CN')
      .send({ title: 42, extra: 1 })
      .expect(400);
    expect(en.body.code).toBe('VALIDATION_FAILED');
    expect(zh.body.code).toBe('VALIDATION_FAILED');
    expect(en.body.error).toMatch(/property extra should not exist/);
    expect(zh.body.error).toMatch(/不允许的字段 extra/);
    expect(zh.body.error).toMatch(/title 必须是字符串/);
    expect(zh.body.success).toBe(false);
  });

  it('translates domain and framework errors in Chinese, codes unchanged', async () => {
    const zh = { 'x-locale': 'zh' };
    const unauth = await t.http.get('/api/protected').set(zh).expect(401);
    expect(unauth.body).toEqual({ error: '需要登录。', code: 'UNAUTHORIZED' });
    const notFound = await t.http.get('/api/no-such-route').set(zh).expect(404);
    expect(notFound.body).toEqual({ error: '未找到。', code: 'NOT_FOUND' });
    const malformed = await t.http
      .post('/api/auth/login?locale=zh')
      .set('content-type', 'application/json')
      .send('{bad')
      .expect(400);
    expect(malformed.body).toEqual({ error: '请求体中的 JSON 格式错误。', code: 'MALFORMED_JSON' });
    const u = await newUser(t);
    const model = await t.http
      .post('/api/ai/generate?locale=zh')
      .set(u.auth)
      .send({ modelId: 'nope', messages: [{ role: 'user', content: 'hi' }] })
      .expect(400);
    expect(model.body).toEqual({ error: '模型不存在或不可用。', code: 'UNKNOWN_MODEL' });
  });
});
