import type { AddressInfo } from 'node:net';
import { startProviders, type Providers } from '../../support/providers';
import type { TestUser } from '../../support/factories';
import { createTestApp, type TestApp } from '../../support/test-app';
import { waitFor } from '../../support/wait';

/** The app listening on a loopback port, with the three provider doubles behind it. */
export interface Gateway {
  t: TestApp;
  p: Providers;
  /** `http://127.0.0.1:<port>/v1`, what a client library takes as its base URL. */
  baseURL: string;
  close(): Promise<void>;
}

/** Boots the app on a free loopback port, pointed at fresh provider doubles. */
export async function startGateway(): Promise<Gateway> {
  const p = await startProviders();
  const t = await createTestApp(p.env);
  const server = t.app.getHttpServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  return {
    t,
    p,
    baseURL,
    close: async () => {
      await t.close();
      await p.stop();
    },
  };
}

/** A personal API key of `u` (scopes default to the `ai` scope); the `sk-…` secret and its id. */
export async function keyFor(t: TestApp, u: TestUser): Promise<{ id: string; key: string }> {
  const res = await t.http.post('/api/keys').set(u.auth).send({ name: 'client' }).expect(201);
  return res.body;
}

/** What the books say about one user: balance, CONSUMPTION entries (oldest first), open holds. */
export interface Books {
  credits: number;
  consumptions: { amount: number; modelId: string; keyId: string | null }[];
  openHolds: number;
}

export async function booksOf(t: TestApp, userId: string): Promise<Books> {
  const [user] = await t.db.query('SELECT credits FROM users WHERE id = $1', [userId]);
  const consumptions = await t.db.query(
    `SELECT amount, "modelId", "keyId" FROM credit_transactions
     WHERE "userId" = $1 AND type = 'CONSUMPTION' ORDER BY "createdAt", id`,
    [userId],
  );
  const [holds] = await t.db.query(
    'SELECT count(*)::int AS n FROM credit_holds WHERE "userId" = $1',
    [userId],
  );
  return { credits: user.credits, consumptions, openHolds: holds.n };
}

/** The books once no hold of the user is open (a stream settles just after its last chunk). */
export async function settledBooksOf(t: TestApp, userId: string): Promise<Books> {
  await waitFor(async () => (await booksOf(t, userId)).openHolds === 0);
  return booksOf(t, userId);
}

/**
 * The money of the calls made since `before`: exactly `calls` new CONSUMPTION entries (one per
 * model call), no hold left open, and the balance lower by exactly what those entries charged.
 * Returns the credits charged (a positive number), to compare with the `cost` a client saw.
 */
export function chargedSince(before: Books, after: Books, calls: number): number {
  const fresh = after.consumptions.slice(before.consumptions.length);
  expect(fresh).toHaveLength(calls);
  expect(after.openHolds).toBe(0);
  const charged = -fresh.reduce((sum, e) => sum + e.amount, 0);
  expect(charged).toBeGreaterThan(0);
  expect(before.credits - after.credits).toBe(charged);
  return charged;
}
