import type { AddressInfo } from 'node:net';
import Anthropic from '@anthropic-ai/sdk';
import { catalogueWithPlainModels } from './catalogue';
import { startProviders, type Providers } from './providers';
import type { TestUser } from './factories';
import { createTestApp, type TestApp } from './test-app';

/** What the `/v1/messages` e2e files share: the app, the provider doubles and SDK helpers. */
export interface MessagesBed {
  t: TestApp;
  p: Providers;
  /** A new API key of `u` (`body` adds e.g. `dailyCreditLimit`). */
  keyFor(u: TestUser, body?: object): Promise<{ id: string; key: string }>;
  /** The real Anthropic SDK on our app root (it appends `/v1/messages`), no retries. */
  client(apiKey: string): Anthropic;
  /** The user's CONSUMPTION ledger entries, oldest first. */
  consumptions(
    userId: string,
  ): Promise<{ amount: number; keyId: string; modelId: string; description: string }[]>;
  /** Credit holds still open, all users. */
  openHolds(): Promise<number>;
}

/** Our extra `cost` (credits) of a message or a `message_delta` event. */
export const costOf = (m: object) => (m as { cost: number }).cost;

/** The SDK error a call fails with (fails the test when it succeeds). */
export const caught = <T>(promise: Promise<T>) =>
  promise.then(
    () => {
      throw new Error('expected a failure');
    },
    (e: unknown) => e as InstanceType<typeof Anthropic.APIError>,
  );

/**
 * Boots the app (with `plain-model`, a model without capabilities) listening on a port, and the
 * three provider doubles, for one describe block; replies are reset before each test.
 */
export function useMessagesBed(): MessagesBed {
  const bed = {} as MessagesBed;
  let baseURL = '';
  beforeAll(async () => {
    bed.p = await startProviders();
    bed.t = await createTestApp({
      ...bed.p.env,
      MODELS_FILE: catalogueWithPlainModels('plain-model'),
    });
    const server = bed.t.app.getHttpServer();
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await bed.t.close();
    await bed.p.stop();
  });
  beforeEach(() => bed.p.reset());
  bed.keyFor = async (u, body = {}) =>
    (
      await bed.t.http
        .post('/api/keys')
        .set(u.auth)
        .send({ name: 'claude', ...body })
        .expect(201)
    ).body;
  bed.client = (apiKey) => new Anthropic({ baseURL, apiKey, maxRetries: 0 });
  bed.consumptions = (userId) =>
    bed.t.db.query(
      `SELECT amount, "keyId", "modelId", description FROM credit_transactions
       WHERE "userId" = $1 AND type = 'CONSUMPTION' ORDER BY "createdAt"`,
      [userId],
    );
  bed.openHolds = async () =>
    Number((await bed.t.db.query('SELECT count(*) FROM credit_holds'))[0].count);
  return bed;
}
