import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_MODELS } from '../../../src/models/default-models';
import { UsersService } from '../../../src/users/users.service';
import type { Plan } from '../../../src/users/user.entity';
import { newUser, type TestUser } from '../../support/factories';
import { startProviders, type Providers } from '../../support/providers';
import { createTestApp, type TestApp } from '../../support/test-app';

/** The default catalogue plus `short-out`, a gpt-4o-mini whose replies stop at 600 tokens. */
function catalogueWithShortOutput(): string {
  const file = join(mkdtempSync(join(tmpdir(), 'models-')), 'models.json');
  const short = { ...DEFAULT_MODELS[0], id: 'short-out', name: 'Short', maxOutputTokens: 600 };
  writeFileSync(file, JSON.stringify([...DEFAULT_MODELS, short]));
  return file;
}

const hi = [{ role: 'user', content: 'Hi' }]; // 2 characters: 1 prompt token

/**
 * Output-token limits: the spec's routes keep 1000 unless MAX_OUTPUT_TOKENS raises it; `/v1`
 * honours `max_tokens` up to the model's output maximum and the plan's cap
 * (PLAN_MAX_OUTPUT_TOKENS), 4096 when left out; the hold covers what is asked.
 */
describe('Output-token limits per model and per plan', () => {
  let p: Providers;
  let t: TestApp;

  beforeAll(async () => {
    p = await startProviders();
    t = await createTestApp({ ...p.env, MODELS_FILE: catalogueWithShortOutput() });
  });
  afterAll(async () => {
    await t.close();
    await p.stop();
  });
  beforeEach(() => p.reset());

  async function userOn(app: TestApp, plan: Plan, credits = 1000): Promise<TestUser> {
    const u = await newUser(app, { credits });
    await app.app.get(UsersService).setPlan(u.user.id, plan);
    return u;
  }
  const complete = (app: TestApp, u: TestUser, body: object) =>
    app.http
      .post('/v1/chat/completions')
      .set(u.auth)
      .send({ model: 'gpt-4o', messages: hi, ...body });
  const sentMaxTokens = () => p.openai.requests.map((r) => r.body.max_tokens);

  it('accepts max_tokens 1024 on /v1 for FREE and PRO users and sends it upstream', async () => {
    for (const plan of ['FREE', 'PRO'] as const) {
      const u = await userOn(t, plan);
      await complete(t, u, { max_tokens: 1024 }).expect(200);
      await complete(t, u, { max_completion_tokens: 1024 }).expect(200);
    }
    expect(sentMaxTokens()).toEqual([1024, 1024, 1024, 1024]);
  });

  it('follows a change of plan at once, for a cached session and for an API key', async () => {
    const u = await userOn(t, 'FREE');
    // The session row (with its plan) is cached by the first request.
    await complete(t, u, { max_tokens: 16384 }).expect(400);
    const key = await t.http.post('/api/keys').set(u.auth).send({ name: 'caps' }).expect(201);
    const byKey = { authorization: `Bearer ${key.body.key}` };
    const keyCall = () =>
      t.http
        .post('/v1/chat/completions')
        .set(byKey)
        .send({ model: 'gpt-4o', messages: hi, max_tokens: 16384 });
    await keyCall().expect(400);
    await t.app.get(UsersService).setPlan(u.user.id, 'BASIC');
    await complete(t, u, { max_tokens: 16384 }).expect(200);
    await keyCall().expect(200);
    await t.app.get(UsersService).setPlan(u.user.id, 'FREE');
    const refused = await complete(t, u, { max_tokens: 16384 }).expect(400);
    expect(refused.body.error.message).toContain('FREE) allows at most 4096');
    await keyCall().expect(400);
    expect(sentMaxTokens()).toEqual([16384, 16384]);
  });

  it('refuses max_tokens above the plan cap with 400 naming the cap and the field', async () => {
    const free = await userOn(t, 'FREE');
    const res = await complete(t, free, { max_tokens: 4097 }).expect(400);
    expect(res.body.error).toEqual(
      expect.objectContaining({
        type: 'invalid_request_error',
        code: 'validation_failed',
        param: 'max_tokens',
        message: expect.stringContaining('at most 4096'),
      }),
    );
    const newer = await complete(t, free, { max_completion_tokens: 5000 }).expect(400);
    expect(newer.body.error.param).toBe('max_completion_tokens');
    const basic = await userOn(t, 'BASIC');
    await complete(t, basic, { max_tokens: 16384 }).expect(200);
    // claude-haiku-4-5 writes up to 64000: BASIC's cap of 16384 applies.
    const over = await complete(t, basic, { model: 'claude-haiku-4-5', max_tokens: 16385 });
    expect(over.status).toBe(400);
    expect(over.body.error.message).toMatch(/BASIC.*at most 16384/);
    expect(sentMaxTokens()).toEqual([16384]);
    expect(p.anthropic.requests).toHaveLength(0);
  });

  it("refuses max_tokens above the model's output maximum, less its reasoning budget", async () => {
    const pro = await userOn(t, 'PRO');
    const res = await complete(t, pro, { max_tokens: 16385 }).expect(400);
    expect(res.body.error.param).toBe('max_tokens');
    expect(res.body.error.message).toMatch(/gpt-4o supports at most 16384/);
    await complete(t, pro, { max_tokens: 16384 }).expect(200);
    // gpt-5-mini writes 128000 tokens, thinking included; its budget of 1024 comes on top.
    const reasoning = { model: 'gpt-5-mini', max_completion_tokens: 128000 - 1024 + 1 };
    const tooMany = await complete(t, pro, reasoning).expect(400);
    expect(tooMany.body.error.message).toContain('at most 126976');
    await complete(t, pro, { ...reasoning, max_completion_tokens: 126976 }).expect(200);
    expect(sentMaxTokens()).toEqual([16384, undefined]);
    expect(p.openai.requests[1].body.max_completion_tokens).toBe(128000);
  });

  it('sends 4096 upstream when no max_tokens is given, bounded by the caps', async () => {
    const pro = await userOn(t, 'PRO');
    await complete(t, pro, {}).expect(200);
    await complete(t, pro, { model: 'short-out' }).expect(200);
    const free = await userOn(t, 'FREE');
    await complete(t, free, { model: 'gpt-4o-mini' }).expect(200);
    expect(sentMaxTokens()).toEqual([4096, 600, 4096]);
  });

  it('holds the worst case of what is asked (402 `required`)', async () => {
    // gpt-4o: 0.00001 credits per token × 1000, so ceil((1 prompt token + max tokens) × 0.01).
    const poor = await userOn(t, 'PRO', 0);
    const required = async (body: object) =>
      (await complete(t, poor, body).expect(402)).body.error.required;
    expect(await required({ max_tokens: 1024 })).toBe(11);
    expect(await required({})).toBe(41);
    expect(await required({ max_tokens: 16384 })).toBe(164);
    expect(p.openai.requests).toHaveLength(0);
  });

  it('refuses max_tokens and max_completion_tokens together, as OpenAI does', async () => {
    const u = await userOn(t, 'PRO');
    const res = await complete(t, u, { max_tokens: 10, max_completion_tokens: 10 }).expect(400);
    expect(res.body.error).toEqual(
      expect.objectContaining({ param: 'max_tokens', code: 'validation_failed' }),
    );
    expect(p.openai.requests).toHaveLength(0);
  });

  it('keeps the spec routes at 1000 by default, within the model maximum', async () => {
    const u = await userOn(t, 'PRO');
    const generate = (body: object) =>
      t.http
        .post('/api/ai/generate')
        .set(u.auth)
        .send({ modelId: 'gpt-4o', messages: hi, ...body });
    const res = await generate({ maxTokens: 1001 }).expect(400);
    expect(res.body).toEqual({
      error: expect.stringMatching(/maxTokens .*between 1 and 1000/),
      code: 'VALIDATION_FAILED',
    });
    await generate({ maxTokens: 1000 }).expect(200);
    await generate({ modelId: 'short-out' }).expect(200);
    await generate({ modelId: 'short-out', maxTokens: 601 }).expect(400);
    expect(sentMaxTokens()).toEqual([1000, 600]);
    const { models } = (await t.http.get('/api/ai/models').expect(200)).body;
    const byId = (id: string) => models.find((m: { id: string }) => m.id === id);
    expect(byId('gpt-4o')).toEqual(
      expect.objectContaining({
        maxOutputTokens: 16384,
        parameters: expect.objectContaining({ maxTokens: { min: 1, max: 1000 } }),
      }),
    );
    expect(byId('short-out').parameters.maxTokens).toEqual({ min: 1, max: 600 });
  });

  describe('with MAX_OUTPUT_TOKENS=2000 and PLAN_MAX_OUTPUT_TOKENS=FREE:1500', () => {
    let raised: TestApp;

    beforeAll(async () => {
      raised = await createTestApp({
        ...p.env,
        MAX_OUTPUT_TOKENS: '2000',
        PLAN_MAX_OUTPUT_TOKENS: 'FREE:1500',
      });
    });
    afterAll(() => raised.close());

    it('accepts 1001 on the spec routes, up to the raised cap, keeping the default of 1000', async () => {
      const u = await userOn(raised, 'FREE');
      const generate = (body: object) =>
        raised.http
          .post('/api/ai/generate')
          .set(u.auth)
          .send({ modelId: 'gpt-4o', messages: hi, ...body });
      await generate({ maxTokens: 1001 }).expect(200);
      await generate({}).expect(200);
      const over = await generate({ maxTokens: 2001 }).expect(400);
      expect(over.body.error).toMatch(/between 1 and 2000/);
      expect(sentMaxTokens()).toEqual([1001, 1000]);
    });

    it('applies the configured plan cap on /v1, also to the default', async () => {
      const free = await userOn(raised, 'FREE');
      await complete(raised, free, {}).expect(200);
      const res = await complete(raised, free, { max_tokens: 1501 }).expect(400);
      expect(res.body.error.message).toContain('FREE) allows at most 1500');
      const basic = await userOn(raised, 'BASIC');
      await complete(raised, basic, { max_tokens: 16384 }).expect(200);
      expect(sentMaxTokens()).toEqual([1500, 16384]);
    });
  });
});
