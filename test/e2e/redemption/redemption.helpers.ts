import type { TestUser } from '../../support/factories';
import type { TestApp } from '../../support/test-app';

/** A new client address per call (the app trusts X-Forwarded-For): only the user's count applies. */
let lastHost = 0;
export const freshIp = (): string => `198.51.100.${(lastHost = (lastHost % 250) + 1)}`;

/** What a batch is made with. */
export interface BatchInput {
  name?: string;
  credits?: number;
  quantity?: number;
  expiresAt?: string;
  usesPerCode?: number;
  onePerUser?: boolean;
}

/** Makes a batch through the API as `admin`, exports it once, and returns its id and codes. */
export async function batchOf(
  t: TestApp,
  admin: TestUser,
  input: BatchInput = {},
): Promise<{ id: string; codes: string[] }> {
  const res = await t.http
    .post('/api/admin/redemption-batches')
    .set(admin.auth)
    .send({ name: 'Test batch', credits: 50, quantity: 1, ...input })
    .expect(201);
  const csv = await t.http
    .post(`/api/admin/redemption-batches/${res.body.id}/export`)
    .set(admin.auth)
    .expect(200)
    .expect('Content-Type', /^text\/csv/);
  const [header, ...rows] = csv.text.trim().split('\r\n');
  if (header !== 'code,credits,expiresAt') throw new Error(`CSV header ${header}`);
  return { id: res.body.id, codes: rows.map((r) => r.split(',')[0]) };
}

/** POST /api/credits/redeem as `u`, from `ip` (a fresh address unless given). */
export function redeem(t: TestApp, u: TestUser, code: string, ip = freshIp()) {
  return t.http.post('/api/credits/redeem').set(u.auth).set('X-Forwarded-For', ip).send({ code });
}

/** The REDEMPTION entries of user `userId`: amount and reference, oldest first. */
export function redemptionsOf(
  t: TestApp,
  userId: string,
): Promise<{ amount: number; reference: string }[]> {
  return t.db.query(
    `SELECT amount, reference FROM credit_transactions
     WHERE "userId" = $1 AND type = 'REDEMPTION' ORDER BY "createdAt"`,
    [userId],
  );
}
