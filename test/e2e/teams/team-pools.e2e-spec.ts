import { ledgerOf, newChat, newTeam, newUser, type TestUser } from '../../support/factories';
import { startProviders, type Providers } from '../../support/providers';
import { createTestApp, type TestApp } from '../../support/test-app';

/**
 * Team credit pools: funding by transfer, spending in the team's context (the request's
 * `teamId`, a team chat), refusals that change nothing, and the ledger invariant per team:
 * `teams.credits + Σ open holds of the team = Σ ledger amounts of the team`.
 */
describe('team credit pools', () => {
  let t: TestApp;
  let p: Providers;
  const ask = { modelId: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hello' }] };

  beforeAll(async () => {
    p = await startProviders();
    t = await createTestApp(p.env);
  });
  afterAll(async () => {
    await t.close();
    await p.stop();
  });
  beforeEach(() => {
    p.reset();
    // 100 000 prompt + 10 000 completion tokens at 0.0006 credits a token: 66 credits.
    p.openai.reply = { text: 'Hi', usage: { prompt_tokens: 100_000, completion_tokens: 10_000 } };
  });

  /** The pool's balance, its open holds and the Σ of its entries (equal with the holds). */
  async function poolOf(teamId: string) {
    const [row] = await t.db.query(
      `SELECT t.credits,
         (SELECT COALESCE(SUM(amount), 0)::int FROM credit_holds WHERE "teamId" = t.id) AS held,
         (SELECT COALESCE(SUM(amount), 0)::int FROM credit_transactions
           WHERE "teamId" = t.id) AS "ledgerSum",
         (SELECT COUNT(*)::int FROM credit_transactions WHERE "teamId" = t.id) AS entries
       FROM teams t WHERE t.id = $1`,
      [teamId],
    );
    expect(row.credits + row.held).toBe(row.ledgerSum);
    return row as { credits: number; held: number; ledgerSum: number; entries: number };
  }

  /** A team of `owner` (credits 1000) with an ADMIN and a MEMBER (no credits of their own). */
  async function teamWithPool(pool: number) {
    const owner = await newUser(t, { credits: 1000 });
    const admin = await newUser(t, { credits: 0 });
    const member = await newUser(t, { credits: 0 });
    const team = await newTeam(t, owner, {
      members: [
        [admin, 'ADMIN'],
        [member, 'MEMBER'],
      ],
    });
    if (pool > 0)
      await t.http
        .post(`/api/teams/${team.id}/credits/transfers`)
        .set(owner.auth)
        .send({ amount: pool })
        .expect(201);
    return { owner, admin, member, team };
  }

  const transfer = (u: TestUser, teamId: string, amount: unknown) =>
    t.http.post(`/api/teams/${teamId}/credits/transfers`).set(u.auth).send({ amount });

  describe('funding by transfer', () => {
    it('moves credits from the owner to the pool: one transaction, one entry on each side', async () => {
      const { owner, team } = await teamWithPool(0);
      const res = await transfer(owner, team.id, 600).expect(201);
      expect(res.body).toEqual({ success: true, data: { credits: 600, balance: 400 } });
      expect(await poolOf(team.id)).toMatchObject({ credits: 600, held: 0, entries: 1 });
      const own = await ledgerOf(t, owner.user.id);
      expect(own.credits).toBe(400);
      expect(own.ledgerSum).toBe(400);
      const entries = await t.db.query(
        `SELECT "userId", "teamId", "memberId", amount, type, reference FROM credit_transactions
         WHERE type = 'TRANSFER' AND ("userId" = $1 OR "teamId" = $2) ORDER BY amount`,
        [owner.user.id, team.id],
      );
      expect(entries).toEqual([
        expect.objectContaining({ userId: owner.user.id, teamId: null, amount: -600 }),
        expect.objectContaining({ userId: null, teamId: team.id, memberId: owner.user.id }),
      ]);
      const [out, into] = entries.map((e: { reference: string }) => e.reference.split(':'));
      expect(out[1]).toBe(into[1]); // one transfer id, two sides
    });

    it('changes nothing when the balance is short, the input bad, or the caller not allowed', async () => {
      const { owner, admin, member, team } = await teamWithPool(100);
      const stranger = await newUser(t, { credits: 500 });
      const before = await poolOf(team.id);
      const short = await transfer(owner, team.id, 901).expect(402);
      expect(short.body.code).toBe('INSUFFICIENT_CREDITS');
      for (const amount of [-5, 0, 1.5, '10', null, 1e10])
        await transfer(owner, team.id, amount).expect(400);
      // An ADMIN may fund (with credits of their own); a MEMBER may not; a stranger sees nothing.
      expect((await transfer(admin, team.id, 1).expect(402)).body.code).toBe(
        'INSUFFICIENT_CREDITS',
      );
      expect((await transfer(member, team.id, 1).expect(403)).body.code).toBe('FORBIDDEN');
      await transfer(stranger, team.id, 50).expect(404);
      await transfer(owner, '00000000-0000-4000-8000-000000000000', 50).expect(404);
      expect(await poolOf(team.id)).toEqual(before);
      expect((await ledgerOf(t, owner.user.id)).credits).toBe(900);
      expect((await ledgerOf(t, stranger.user.id)).credits).toBe(500);
    });
  });

  describe('spending from the pool', () => {
    it("pays a member's call with teamId from the pool; their own balance is untouched", async () => {
      const { member, team } = await teamWithPool(200);
      const res = await t.http
        .post('/api/ai/generate')
        .set(member.auth)
        .send({ ...ask, teamId: team.id })
        .expect(200);
      expect(res.body.cost).toBe(66);
      expect(await poolOf(team.id)).toMatchObject({ credits: 134, held: 0 });
      expect(await ledgerOf(t, member.user.id)).toMatchObject({ credits: 0, ledgerSum: 0 });
      const [entry] = await t.db.query(
        `SELECT "userId", "memberId", amount, "modelId" FROM credit_transactions
         WHERE "teamId" = $1 AND type = 'CONSUMPTION'`,
        [team.id],
      );
      expect(entry).toEqual({
        userId: null,
        memberId: member.user.id,
        amount: -66,
        modelId: 'gpt-4o-mini',
      });
      // The plan's daily limit counts the user's own balance only: no day counter for them.
      const days = await t.db.query('SELECT 1 FROM daily_consumption WHERE "userId" = $1', [
        member.user.id,
      ]);
      expect(days).toHaveLength(0);
    });

    it('pays a call in a team chat from the pool; teamId null pays from the own balance', async () => {
      const { owner, member, team } = await teamWithPool(200);
      const chat = await newChat(t, owner, { teamId: team.id });
      await t.http
        .post('/api/ai/generate')
        .set(member.auth)
        .send({ ...ask, chatId: chat.id })
        .expect(200);
      expect((await poolOf(team.id)).credits).toBe(134);
      // Opting out: the member's own balance (0) pays, and refuses.
      const own = await t.http
        .post('/api/ai/generate')
        .set(member.auth)
        .send({ ...ask, chatId: chat.id, teamId: null })
        .expect(402);
      expect(own.body.code).toBe('INSUFFICIENT_CREDITS');
      expect(own.body.teamId).toBeUndefined();
      expect((await poolOf(team.id)).credits).toBe(134);
    });

    it('streams from the pool too (/api/ai/stream)', async () => {
      const { admin, team } = await teamWithPool(100);
      await t.http
        .post('/api/ai/stream')
        .set(admin.auth)
        .send({ ...ask, teamId: team.id })
        .expect(200);
      expect(await poolOf(team.id)).toMatchObject({ credits: 34, held: 0 });
      expect((await ledgerOf(t, admin.user.id)).credits).toBe(0);
    });

    it('refuses with 402 when the pool cannot hold the worst case, and changes nothing', async () => {
      const { owner, member, team } = await teamWithPool(1);
      const before = await poolOf(team.id);
      const res = await t.http
        .post('/api/ai/generate')
        .set(member.auth)
        // 10 000 prompt tokens: a hold of at least 6 credits.
        .send({
          ...ask,
          messages: [{ role: 'user', content: 'x'.repeat(40_000) }],
          teamId: team.id,
        })
        .expect(402);
      expect(res.body).toMatchObject({ code: 'INSUFFICIENT_CREDITS', balance: 1, teamId: team.id });
      expect(p.openai.requests).toHaveLength(0);
      expect(await poolOf(team.id)).toEqual(before);
      // The owner's own 999 credits are not the pool's.
      expect((await ledgerOf(t, owner.user.id)).credits).toBe(999);
    });

    it("refuses someone else's team, and a member's next call once removed (404, nothing changes)", async () => {
      const { owner, member, team } = await teamWithPool(300);
      const stranger = await newUser(t, { credits: 500 });
      const other = await t.http
        .post('/api/ai/generate')
        .set(stranger.auth)
        .send({ ...ask, teamId: team.id })
        .expect(404);
      expect(other.body.code).toBe('NOT_FOUND');
      await t.http
        .post('/api/ai/generate')
        .set(member.auth)
        .send({ ...ask, teamId: team.id })
        .expect(200);
      await t.http
        .delete(`/api/teams/${team.id}/members/${member.user.id}`)
        .set(owner.auth)
        .expect(200);
      const before = await poolOf(team.id);
      await t.http
        .post('/api/ai/generate')
        .set(member.auth)
        .send({ ...ask, teamId: team.id })
        .expect(404);
      expect(p.openai.requests).toHaveLength(1);
      expect(await poolOf(team.id)).toEqual(before);
      expect((await ledgerOf(t, stranger.user.id)).credits).toBe(500);
    });

    it('keeps the invariant per team and per user after a mix of parallel calls', async () => {
      const { owner, admin, member, team } = await teamWithPool(500);
      await transfer(owner, team.id, 100).expect(201);
      p.openai.reply = { text: 'ok', usage: { prompt_tokens: 1000, completion_tokens: 500 } };
      const calls = [owner, admin, member, owner, admin, member, owner, member].map((u, i) =>
        t.http
          .post(i % 2 ? '/api/ai/generate' : '/api/ai/stream')
          .set(u.auth)
          .send(u === owner && i > 3 ? ask : { ...ask, teamId: team.id }),
      );
      const answers = await Promise.all(calls);
      expect(answers.map((r) => r.status)).toEqual(Array(8).fill(200));
      const pool = await poolOf(team.id);
      expect(pool.held).toBe(0);
      // 1500 tokens × 0.0006 = 0.9 → 1 credit a call; 7 paid by the pool, 1 by the owner.
      expect(pool.credits).toBe(600 - 7);
      const own = await ledgerOf(t, owner.user.id);
      expect(own.credits).toBe(own.ledgerSum);
      expect(own.credits).toBe(1000 - 600 - 1);
      for (const u of [admin, member]) expect((await ledgerOf(t, u.user.id)).credits).toBe(0);
    });
  });

  describe("a team's API key", () => {
    const keyFor = (u: TestUser, teamId: string) =>
      t.http.post('/api/keys').set(u.auth).send({ name: 'team key', teamId });

    it('is made by OWNERs and ADMINs only, and its calls spend from the pool on every route', async () => {
      const { owner, admin, member, team } = await teamWithPool(300);
      const stranger = await newUser(t);
      expect((await keyFor(member, team.id).expect(403)).body.code).toBe('FORBIDDEN');
      await keyFor(stranger, team.id).expect(404);
      const created = await keyFor(admin, team.id).expect(201);
      expect(created.body.teamId).toBe(team.id);
      const bearer = { Authorization: `Bearer ${created.body.key}` };
      await t.http.post('/api/ai/generate').set(bearer).send(ask).expect(200);
      await t.http
        .post('/v1/chat/completions')
        .set(bearer)
        .send({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hello' }] })
        .expect(200);
      expect(await poolOf(team.id)).toMatchObject({ credits: 300 - 2 * 66, held: 0 });
      expect((await ledgerOf(t, admin.user.id)).credits).toBe(0);
      const [entry] = await t.db.query(
        `SELECT "keyId", "memberId" FROM credit_transactions
         WHERE "teamId" = $1 AND type = 'CONSUMPTION' LIMIT 1`,
        [team.id],
      );
      expect(entry).toEqual({ keyId: created.body.id, memberId: admin.user.id });
      // The key's team binds: naming another team is refused, nothing held.
      const other = await newTeam(t, admin);
      await t.http
        .post('/api/ai/generate')
        .set(bearer)
        .send({ ...ask, teamId: other.id })
        .expect(400);
      // Its maker removed from the team: the key spends nothing more.
      await t.http
        .delete(`/api/teams/${team.id}/members/${admin.user.id}`)
        .set(owner.auth)
        .expect(200);
      const before = await poolOf(team.id);
      await t.http.post('/api/ai/generate').set(bearer).send(ask).expect(404);
      expect(await poolOf(team.id)).toEqual(before);
    });
  });

  describe("a member's account deleted while their pool call runs", () => {
    /**
     * Holds the local model server's answers until `open()`; `arrived` resolves once a request
     * waits there (the call has its hold and is upstream).
     */
    function gateUpstream() {
      const server = p.openai as unknown as Record<'handle', (...a: unknown[]) => Promise<void>>;
      const handle = server.handle;
      let open!: () => void;
      let arrive!: () => void;
      const opened = new Promise<void>((resolve) => (open = resolve));
      const arrived = new Promise<void>((resolve) => (arrive = resolve));
      server.handle = async (...a: unknown[]) => {
        arrive();
        await opened;
        return handle.apply(p.openai, a);
      };
      return {
        arrived,
        open: () => {
          delete (server as Partial<typeof server>).handle; // the class's own method again
          open();
        },
      };
    }

    it('charges the pool when the call ends, its entry naming no member; the ledger equals the balances', async () => {
      const { member, team } = await teamWithPool(200);
      const admin = await newUser(t, { role: 'ADMIN' });
      const gate = gateUpstream();
      const call = t.http
        .post('/api/ai/generate')
        .set(member.auth)
        .send({ ...ask, teamId: team.id })
        .then((res) => res);
      await gate.arrived;
      expect((await poolOf(team.id)).held).toBeGreaterThan(0);
      await t.http.delete(`/api/users/${member.user.id}`).set(admin.auth).expect(200);
      gate.open();
      await call;
      expect(await poolOf(team.id)).toMatchObject({ credits: 134, held: 0 });
      const entries = await t.db.query(
        `SELECT "userId", "memberId", amount FROM credit_transactions
         WHERE "teamId" = $1 AND type = 'CONSUMPTION'`,
        [team.id],
      );
      expect(entries).toEqual([{ userId: null, memberId: null, amount: -66 }]);
      const broken = await t.db.query(
        `SELECT u.id FROM users u
         WHERE u.credits < 0 OR u.credits + (SELECT COALESCE(SUM(amount), 0) FROM credit_holds h
           WHERE h."userId" = u.id) <> (SELECT COALESCE(SUM(amount), 0) FROM credit_transactions ct
           WHERE ct."userId" = u.id)`,
      );
      expect(broken).toEqual([]);
    });
  });

  describe('what members see', () => {
    it("shows the pool and my use to members, every member's use to OWNERs and ADMINs", async () => {
      const { owner, admin, member, team } = await teamWithPool(200);
      await t.http
        .post('/api/ai/generate')
        .set(member.auth)
        .send({ ...ask, teamId: team.id })
        .expect(200);
      const mine = await t.http.get(`/api/teams/${team.id}/credits`).set(member.auth).expect(200);
      expect(mine.body.data).toMatchObject({
        teamId: team.id,
        credits: 134,
        held: 0,
        role: 'MEMBER',
        mine: { userId: member.user.id, spent: 66, calls: 1, funded: 0 },
      });
      await t.http.get(`/api/teams/${team.id}/credits/usage`).set(member.auth).expect(403);
      const stranger = await newUser(t);
      await t.http.get(`/api/teams/${team.id}/credits`).set(stranger.auth).expect(404);
      const usage = await t.http
        .get(`/api/teams/${team.id}/credits/usage?days=7`)
        .set(admin.auth)
        .expect(200);
      expect(usage.body.data.members).toEqual([
        { userId: member.user.id, spent: 66, calls: 1, funded: 0 },
        { userId: owner.user.id, spent: 0, calls: 0, funded: 200 },
      ]);
      await t.http.get(`/api/teams/${team.id}/credits/usage?days=0`).set(owner.auth).expect(400);
    });
  });
});
