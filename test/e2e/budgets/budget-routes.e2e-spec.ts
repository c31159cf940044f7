import { randomUUID } from 'node:crypto';
import { newUser, type TestUser } from '../../support/factories';
import { startProviders, type Providers } from '../../support/providers';
import { createTestApp, type TestApp } from '../../support/test-app';

/** A minimal valid request of each metered route (POST with the `ai` scope). */
const BODIES: Record<string, () => object> = {
  'POST /api/ai/generate': () => ({ modelId: 'gpt-4o-mini', messages: [user('Hi')] }),
  'POST /api/ai/stream': () => ({ modelId: 'gpt-4o-mini', messages: [user('Hi')] }),
  'POST /api/ai/chat': () => ({
    id: randomUUID(),
    modelId: 'gpt-4o-mini',
    trigger: 'submit-message',
    messages: [{ id: randomUUID(), role: 'user', parts: [{ type: 'text', text: 'Hi' }] }],
  }),
  'POST /v1/chat/completions': () => ({ model: 'gpt-4o-mini', messages: [user('Hi')] }),
  'POST /v1/responses': () => ({ model: 'gpt-4o-mini', input: 'Hi' }),
  'POST /v1/messages': () => ({ model: 'gpt-4o-mini', max_tokens: 100, messages: [user('Hi')] }),
  'POST /v1/embeddings': () => ({ model: 'text-embedding-3-small', input: 'Hi' }),
};

/** POST routes with the `ai` scope that spend nothing (estimates, token counts). */
const FREE = ['POST /api/credits/estimate', 'POST /v1/messages/count_tokens'];

function user(content: string) {
  return { role: 'user', content };
}

type ErrorBody = {
  code?: string;
  error?: string | { code?: string; type?: string; details?: { error_code?: string } };
};

/** The error code of any of our shapes: ours, OpenAI's (`/v1`), Anthropic's (`/v1/messages`). */
function codeOf(body: ErrorBody): string | undefined {
  if (body.code) return body.code;
  const e = body.error;
  if (typeof e !== 'object') return undefined;
  return (e.code ?? e.details?.error_code)?.toUpperCase();
}

/**
 * One gate on every metered route: the route table of the OpenAPI document is walked, and each
 * metered route must refuse a call past an exhausted budget with BUDGET_EXCEEDED in its
 * protocol's shape, before any upstream is called.
 */
describe('Budgets on every metered route', () => {
  let t: TestApp;
  let p: Providers;
  let metered: string[];

  beforeAll(async () => {
    p = await startProviders();
    t = await createTestApp({
      ...p.env,
      EMBEDDINGS_MODEL: 'text-embedding-3-small',
      EMBEDDINGS_DIMENSIONS: '64',
      SEARCH_INDEX_DELAY_SECONDS: '3600',
    });
    const doc = (await t.http.get('/api/docs-json').expect(200)).body as {
      paths: Record<string, Record<string, { 'x-api-key-scope'?: string }>>;
    };
    metered = Object.entries(doc.paths)
      .flatMap(([path, item]) =>
        Object.entries(item)
          .filter(([method, op]) => method === 'post' && op['x-api-key-scope'] === 'ai')
          .map(([method]) => `${method.toUpperCase()} ${path}`),
      )
      .filter((name) => !FREE.includes(name));
  });
  afterAll(async () => {
    await t.close();
    await p.stop();
  });
  beforeEach(() => p.reset());

  async function capped(window: 'day' | 'total'): Promise<TestUser> {
    const u = await newUser(t, { credits: 1000 });
    await t.http
      .put('/api/budgets')
      .set(u.auth)
      .send({ scope: 'user', windows: [{ window, limit: 0 }] })
      .expect(200);
    return u;
  }
  const call = (name: string, u: TestUser) => {
    const [, path] = name.split(' ');
    return t.http.post(path).set(u.auth).send(BODIES[name]());
  };

  it('knows a request of every metered route of the document', () => {
    expect(metered.filter((name) => !(name in BODIES))).toEqual([]);
    expect(metered.length).toBeGreaterThanOrEqual(Object.keys(BODIES).length);
  });

  it('refuses each metered route past a day budget: 429 BUDGET_EXCEEDED with Retry-After', async () => {
    const u = await capped('day');
    const passed: string[] = [];
    for (const name of metered) {
      const res = await call(name, u);
      const ok =
        res.status === 429 &&
        codeOf(res.body) === 'BUDGET_EXCEEDED' &&
        Number(res.headers['retry-after']) > 0;
      if (!ok) passed.push(`${name}: ${res.status} ${JSON.stringify(res.body).slice(0, 200)}`);
    }
    expect(passed).toEqual([]);
    expect(p.openai.requests).toHaveLength(0);
  });

  it("answers in each protocol's shape, with the window's details", async () => {
    const u = await capped('day');
    const ours = await call('POST /api/ai/generate', u);
    expect(ours.body).toMatchObject({
      code: 'BUDGET_EXCEEDED',
      scope: 'user',
      scopeId: u.user.id,
      window: 'day',
      limit: 0,
      used: 0,
      held: 0,
      resetsAt: expect.any(String),
    });
    const openai = await call('POST /v1/chat/completions', u);
    expect(openai.body.error).toMatchObject({
      type: 'rate_limit_error',
      code: 'budget_exceeded',
      scope: 'user',
      window: 'day',
    });
    const anthropic = await call('POST /v1/messages', u);
    expect(anthropic.body).toMatchObject({
      type: 'error',
      error: {
        type: 'rate_limit_error',
        details: { error_code: 'budget_exceeded', window: 'day' },
      },
    });
    const zh = await t.http
      .post('/api/ai/generate')
      .set(u.auth)
      .set('Accept-Language', 'zh-CN')
      .send(BODIES['POST /api/ai/generate']());
    expect(zh.body.error).toMatch(/[\u4e00-\u9fff]/);
  });

  it('a total budget refuses with 402 and no Retry-After', async () => {
    const u = await capped('total');
    const res = await call('POST /v1/chat/completions', u);
    expect(res.status).toBe(402);
    expect(res.headers['retry-after']).toBeUndefined();
    expect(res.body.error).toMatchObject({ type: 'insufficient_quota', code: 'budget_exceeded' });
  });
});
