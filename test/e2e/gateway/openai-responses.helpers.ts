import type { AddressInfo } from 'node:net';
import OpenAI from 'openai';
import type { TestUser } from '../../support/factories';
import type { TestApp } from '../../support/test-app';

/** The three providers' test models: each must answer through the Responses wire alike. */
export const MODELS = ['gpt-4o', 'claude-haiku-4-5', 'gemini-2.5-flash'] as const;

/** Listens on a free port and answers the `/v1` base URL the SDK is given. */
export async function v1BaseUrl(t: TestApp): Promise<string> {
  const server = t.app.getHttpServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
}

/** An `openai` client with a new API key of `u` (default scopes unless `scopes`). */
export async function sdkClient(
  t: TestApp,
  baseURL: string,
  u: TestUser,
  scopes?: string[],
): Promise<OpenAI> {
  const res = await t.http
    .post('/api/keys')
    .set(u.auth)
    .send({ name: 'sdk', ...(scopes ? { scopes } : {}) })
    .expect(201);
  return new OpenAI({ baseURL, apiKey: res.body.key, maxRetries: 0 });
}

/** The user's balance in credits. */
export async function balanceOf(t: TestApp, userId: string): Promise<number> {
  return (await t.db.query('SELECT credits FROM users WHERE id = $1', [userId]))[0].credits;
}
