import fc from 'fast-check';
import { CreditHoldsService, type OpenHold } from '../../../src/credits/credit-holds.service';
import { CreditsService } from '../../../src/credits/credits.service';
import { MetricsService } from '../../../src/metrics/metrics.service';
import { newUser } from '../../support/factories';
import { createTestApp, type TestApp } from '../../support/test-app';

/** The FREE plan's daily limit (spec Limits 3). */
const DAILY_LIMIT = 100;
const USERS = 3;

interface AdmitOp {
  kind: 'admit';
  user: number;
  amount: number;
  /** Prompt estimate checked against the daily limit; null: none (as a bare hold). */
  estimate: number | null;
  viaKey: boolean;
}
interface SettleOp {
  kind: 'settle';
  /** Index into the holds admitted so far (modulo their count). */
  pick: number;
  cost: number;
}
/** Calls made at once: all admissions, or all settlements (settlements covered by their hold). */
type Wave = AdmitOp[] | SettleOp[];

/** What one user starts with: balance, consumed earlier today, and their key's daily limit. */
interface Start {
  credits: number;
  usedToday: number;
  keyLimit: number | null;
}

/** The sequential model: one request after the other, as statements run alone would decide. */
interface ModelUser {
  credits: number;
  used: number;
  keyLimit: number | null;
  keyUsed: number;
}
interface ModelHold {
  user: number;
  amount: number;
  viaKey: boolean;
  open: OpenHold;
  charged: number | null;
}

const admitOp = fc.record<AdmitOp>({
  kind: fc.constant('admit'),
  user: fc.integer({ min: 0, max: USERS - 1 }),
  amount: fc.integer({ min: 1, max: 15 }),
  estimate: fc.option(fc.integer({ min: 0, max: 12 }), { nil: null }),
  viaKey: fc.boolean(),
});
const settleOp = fc.record<SettleOp>({
  kind: fc.constant('settle'),
  pick: fc.nat(),
  cost: fc.integer({ min: 0, max: 20 }),
});
const wave: fc.Arbitrary<Wave> = fc.oneof(
  fc.array(admitOp, { minLength: 1, maxLength: 6 }),
  fc.array(settleOp, { minLength: 1, maxLength: 6 }),
);
const start = fc.record<Start>({
  credits: fc.integer({ min: 0, max: 40 }),
  usedToday: fc.integer({ min: 0, max: 95 }),
  keyLimit: fc.option(fc.integer({ min: 5, max: 40 }), { nil: null }),
});

/**
 * Random interleavings of admissions and settlements for a few users, batched (BATCH_STATEMENTS
 * on), against a sequential model of balance, open holds, the plan's daily limit and each key's
 * daily limit: every answer and the final state equal the model's, and the ledger invariant
 * holds. Calls of one wave are made at once, so the batcher groups them; the model takes them in
 * the order they were made, as the batch decides them.
 */
describe('batched admissions and settlements against a sequential model', () => {
  let t: TestApp;
  let holds: CreditHoldsService;
  let credits: CreditsService;

  beforeAll(async () => {
    t = await createTestApp();
    holds = t.app.get(CreditHoldsService);
    credits = t.app.get(CreditsService);
  });
  afterAll(() => t.close());

  /** A user with `s.credits` left after `s.usedToday` consumed today, and an API key. */
  async function setUp(s: Start) {
    const u = await newUser(t, { credits: s.credits + s.usedToday });
    if (s.usedToday) await credits.consume(u.user.id, s.usedToday, 'earlier today');
    const key = await t.http
      .post('/api/keys')
      .set(u.auth)
      .send({ name: 'model', dailyCreditLimit: s.keyLimit })
      .expect(201);
    return { id: u.user.id, keyId: key.body.id as string };
  }

  /** The model's answer to an admission: null when admitted, else the refusal's code. */
  function decide(m: ModelUser, open: ModelHold[], op: AdmitOp): string | null {
    const mine = open.filter((h) => h.charged === null && h.user === op.user);
    const held = mine.reduce((n, h) => n + h.amount, 0);
    const keyHeld = mine.filter((h) => h.viaKey).reduce((n, h) => n + h.amount, 0);
    const dailyOk = op.estimate === null || m.used + held + op.estimate <= DAILY_LIMIT;
    const keyOk =
      !op.viaKey || m.keyLimit === null || m.keyUsed + keyHeld + op.amount <= m.keyLimit;
    if (dailyOk && keyOk && m.credits >= op.amount) return null;
    if (!dailyOk) return 'DAILY_LIMIT_REACHED';
    if (!keyOk) return 'KEY_DAILY_LIMIT_REACHED';
    return 'INSUFFICIENT_CREDITS';
  }

  it('answers and ends exactly as the requests one after the other would', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(start, { minLength: USERS, maxLength: USERS }),
        fc.array(wave, { minLength: 1, maxLength: 8 }),
        async (starts, waves) => {
          run++;
          const users = await Promise.all(starts.map(setUp));
          const model: ModelUser[] = starts.map((s) => ({
            credits: s.credits,
            used: s.usedToday,
            keyLimit: s.keyLimit,
            keyUsed: 0,
          }));
          const admitted: ModelHold[] = [];
          for (const [w, calls] of waves.entries()) {
            if (calls[0].kind === 'admit') {
              const ops = calls as AdmitOp[];
              const answers = await Promise.allSettled(
                ops.map((op, i) =>
                  holds.hold(
                    users[op.user].id,
                    op.amount,
                    `model-${run}-${w}-${i}`,
                    op.estimate ?? undefined,
                    op.viaKey ? users[op.user].keyId : undefined,
                  ),
                ),
              );
              ops.forEach((op, i) => {
                const expected = decide(model[op.user], admitted, op);
                const answer = answers[i];
                if (expected === null) {
                  expect(answer.status).toBe('fulfilled');
                  const open = (answer as PromiseFulfilledResult<OpenHold>).value;
                  model[op.user].credits -= op.amount;
                  admitted.push({ ...op, open, charged: null });
                } else {
                  expect(answer).toMatchObject({ status: 'rejected', reason: { code: expected } });
                }
              });
            } else if (admitted.length) {
              const picked = (calls as SettleOp[]).map((op) => ({
                hold: admitted[op.pick % admitted.length],
                cost: op.cost,
              }));
              // Within a hold, so no settlement reads the balance (the order between an
              // uncovered settlement's own transaction and the next batch is not fixed).
              const settled = await Promise.all(
                picked.map(({ hold, cost }) =>
                  holds.settle(hold.open, {
                    cost: Math.min(cost, hold.amount),
                    description: 'model',
                  }),
                ),
              );
              picked.forEach(({ hold, cost }, i) => {
                const m = model[hold.user];
                if (hold.charged === null) {
                  hold.charged = Math.min(cost, hold.amount);
                  m.credits += hold.amount - hold.charged;
                  m.used += hold.charged;
                  if (hold.viaKey) m.keyUsed += hold.charged;
                }
                expect(settled[i]).toEqual({ charged: hold.charged, shortfall: 0 });
              });
            }
          }
          for (const [i, u] of users.entries()) {
            const [row] = await t.db.query(
              `SELECT u.credits,
                 (SELECT COALESCE(SUM(amount), 0)::int FROM credit_holds WHERE "userId" = u.id) AS held,
                 (SELECT COALESCE(SUM(amount), 0)::int FROM credit_transactions WHERE "userId" = u.id) AS ledger,
                 (SELECT COALESCE(SUM(credits), 0)::int FROM daily_consumption WHERE "userId" = u.id) AS used,
                 (SELECT COALESCE(SUM(credits), 0)::int FROM daily_key_consumption WHERE "keyId" = $2) AS "keyUsed"
               FROM users u WHERE u.id = $1`,
              [u.id, u.keyId],
            );
            const open = admitted.filter((h) => h.user === i && h.charged === null);
            expect(row).toEqual({
              credits: model[i].credits,
              held: open.reduce((n, h) => n + h.amount, 0),
              ledger: model[i].credits + open.reduce((n, h) => n + h.amount, 0),
              used: model[i].used,
              keyUsed: model[i].keyUsed,
            });
          }
          // Leave nothing open for the next run's users to share a key or a day with.
          await Promise.all(
            admitted.filter((h) => h.charged === null).map((h) => holds.release(h.open)),
          );
        },
      ),
      { numRuns: 25 },
    );
    // The waves were batched: some statements carried more than one request.
    const { values } = await t.app.get(MetricsService).statementBatchSize.get();
    const total = (name: string) =>
      values.filter((v) => v.metricName === name).reduce((n, v) => n + v.value, 0);
    expect(total('credits_statement_batch_size_sum')).toBeGreaterThan(
      total('credits_statement_batch_size_count'),
    );
  }, 600_000);
});
