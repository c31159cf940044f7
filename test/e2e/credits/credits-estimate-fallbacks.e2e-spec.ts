import { routingCatalogue } from '../../support/catalogue';
import { newUser, type TestUser } from '../../support/factories';
import { startProviders, type Providers } from '../../support/providers';
import { createTestApp, type TestApp } from '../../support/test-app';

/**
 * `POST /api/credits/estimate` with fallback models: `cost` stays the requested model's estimate,
 * `maxCost` is the dearest candidate's (the routing catalogue: `route-a` at 0.1 credit a token
 * falls back to `route-b` at 0.2 and `route-c` at 0.3; `route-b` and `route-c` have none).
 */
describe('Credits estimate: the dearest fallback', () => {
  let t: TestApp;
  let p: Providers;
  let u: TestUser;
  // 401 characters: ceil(401 / 4) = 101 estimated tokens.
  const messages = [{ role: 'user', content: 'x'.repeat(401) }];
  const estimate = async (modelId: string) =>
    (await t.http.post('/api/credits/estimate').set(u.auth).send({ modelId, messages }).expect(200))
      .body;

  beforeAll(async () => {
    // The providers' keys make the models available; nothing is sent upstream.
    p = await startProviders();
    t = await createTestApp({ ...p.env, MODELS_FILE: routingCatalogue() });
    u = await newUser(t);
  });
  afterAll(async () => {
    await t.close();
    await p.stop();
  });

  it('gives maxCost at the dearest fallback’s price, cost at the requested model’s', async () => {
    // cost: ceil(101 × 0.0001 × 1000 = 10.1) = 11; maxCost (route-c): ceil(101 × 0.3 = 30.3) = 31.
    expect(await estimate('route-a')).toEqual({ estimatedTokens: 101, cost: 11, maxCost: 31 });
  });

  it('gives maxCost equal to cost for a model without fallbacks', async () => {
    // ceil(101 × 0.0002 × 1000 = 20.2) = 21.
    expect(await estimate('route-b')).toEqual({ estimatedTokens: 101, cost: 21, maxCost: 21 });
    expect(await estimate('gpt-4o')).toEqual({ estimatedTokens: 101, cost: 2, maxCost: 2 });
  });
});
