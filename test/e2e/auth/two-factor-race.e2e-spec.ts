import { newUser, PASSWORD, type TestUser } from '../../support/factories';
import { createTestApp, type TestApp } from '../../support/test-app';
import { challenge, enrol, SetClock, type Enrolled } from '../../support/two-factor';

/**
 * One mfaToken, many verifies at once: the token is claimed before the code is checked, so only
 * the verify holding the claim spends its code; the others are refused without touching theirs.
 */
describe('Two-factor verify claims the mfaToken before checking the code', () => {
  const clock = new SetClock();
  let t: TestApp;
  let u: TestUser;
  let e: Enrolled;
  const verify = (body: object) => t.http.post('/api/auth/2fa/verify').send(body);
  const codesLeft = async (): Promise<number> =>
    (
      await t.db.query(
        'SELECT count(*)::int AS n FROM recovery_codes WHERE "userId" = $1 AND "usedAt" IS NULL',
        [u.user.id],
      )
    )[0].n;

  beforeAll(async () => {
    t = await createTestApp({}, { clock });
    clock.startAt(1);
    u = await newUser(t);
    e = await enrol(t, clock, u.token);
  });
  afterAll(() => t.close());

  it('8 parallel verifies with one mfaToken and 8 recovery codes: one sign-in, one code spent', async () => {
    const mfaToken = await challenge(t, u.user.email, PASSWORD);
    const codes = e.recoveryCodes.slice(0, 8);
    const answers = await Promise.all(
      codes.map((recoveryCode) => verify({ mfaToken, recoveryCode })),
    );
    const statuses = answers.map((r) => r.status).sort();
    expect(statuses).toEqual([200, 401, 401, 401, 401, 401, 401, 401]);
    for (const r of answers.filter((a) => a.status === 401))
      expect(r.body.code).toBe('MFA_TOKEN_INVALID');
    expect(await codesLeft()).toBe(9);
    // The losers' codes still work.
    const winner = codes[answers.findIndex((r) => r.status === 200)];
    const unspent = codes.find((c) => c !== winner)!;
    const next = await challenge(t, u.user.email, PASSWORD);
    await verify({ mfaToken: next, recoveryCode: unspent }).expect(200);
    expect(await codesLeft()).toBe(8);
  });

  it('a wrong code gives the token back: the right code then signs in with it', async () => {
    const mfaToken = await challenge(t, u.user.email, PASSWORD);
    const wrong = await verify({ mfaToken, recoveryCode: 'aaaa-bbbb-cccc' }).expect(401);
    expect(wrong.body.code).toBe('TWO_FACTOR_CODE_INVALID');
    await verify({ mfaToken, recoveryCode: e.recoveryCodes[9] }).expect(200);
    const replay = await verify({ mfaToken, recoveryCode: e.recoveryCodes[8] }).expect(401);
    expect(replay.body.code).toBe('MFA_TOKEN_INVALID');
  });
});
