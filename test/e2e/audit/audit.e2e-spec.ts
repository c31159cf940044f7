import { newTeam, newUser, type TestUser } from '../../support/factories';
import { createTestApp, type TestApp } from '../../support/test-app';
import { enrol, SetClock } from '../../support/two-factor';

/** Every audited action writes its row in its own transaction; rows never change. */
describe('Audit log', () => {
  let t: TestApp;
  let admin: TestUser;
  const clock = new SetClock();
  const rowsFor = (targetId: string) =>
    t.db.query(`SELECT * FROM audit_events WHERE "targetId" = $1 ORDER BY at, action`, [targetId]);

  beforeAll(async () => {
    t = await createTestApp({}, { clock });
    admin = await newUser(t, { role: 'ADMIN' });
  });
  afterAll(() => t.close());

  it('records an admin change of role, plan and credits with actor, request id and address', async () => {
    const u = await newUser(t);
    await t.http
      .put(`/api/users/${u.user.id}`)
      .set(admin.auth)
      .set('x-request-id', 'req-audit-1')
      .send({ role: 'ADMIN', plan: 'PRO', credits: 250, name: 'Not audited' })
      .expect(200);
    const rows = await rowsFor(u.user.id);
    expect(rows.map((r: { action: string }) => r.action).sort()).toEqual([
      'user.credits.adjust',
      'user.plan.change',
      'user.role.change',
    ]);
    for (const r of rows) {
      expect(r).toMatchObject({
        actorId: admin.user.id,
        actorType: 'admin',
        targetType: 'user',
        requestId: 'req-audit-1',
        ip: expect.stringMatching(/127\.0\.0\.1/),
      });
    }
    const byAction = Object.fromEntries(rows.map((r: any) => [r.action, r.details]));
    expect(byAction['user.role.change']).toEqual({ from: 'USER', to: 'ADMIN' });
    expect(byAction['user.plan.change']).toEqual({ from: 'FREE', to: 'PRO' });
    expect(byAction['user.credits.adjust']).toEqual({ from: 100, to: 250 });

    // The same change again changes nothing and records nothing.
    await t.http
      .put(`/api/users/${u.user.id}`)
      .set(admin.auth)
      .send({ role: 'ADMIN', plan: 'PRO', credits: 250 })
      .expect(200);
    expect(await rowsFor(u.user.id)).toHaveLength(3);
  });

  it('writes no row when the action fails after its first audit row (one transaction)', async () => {
    const u = await newUser(t);
    // The ledger refuses this user's next entry: the role change (audited first) rolls back too.
    await t.db.query(`CREATE FUNCTION refuse_entry() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN RAISE EXCEPTION 'ledger refused in test'; END $$`);
    await t.db.query(`CREATE TRIGGER refuse_entry BEFORE INSERT ON credit_transactions
      FOR EACH ROW WHEN (NEW."userId" = '${u.user.id}') EXECUTE FUNCTION refuse_entry()`);
    try {
      await t.http
        .put(`/api/users/${u.user.id}`)
        .set(admin.auth)
        .send({ role: 'ADMIN', credits: 5 })
        .expect(500);
    } finally {
      await t.db.query('DROP TRIGGER refuse_entry ON credit_transactions');
      await t.db.query('DROP FUNCTION refuse_entry()');
    }
    expect(await rowsFor(u.user.id)).toEqual([]);
    const [row] = await t.db.query('SELECT role, credits FROM users WHERE id = $1', [u.user.id]);
    expect(row).toEqual({ role: 'USER', credits: 100 });
  });

  it('refuses UPDATE, DELETE and TRUNCATE of audit_events', async () => {
    const u = await newUser(t);
    await t.http.put(`/api/users/${u.user.id}`).set(admin.auth).send({ plan: 'BASIC' }).expect(200);
    const [row] = await rowsFor(u.user.id);
    await expect(
      t.db.query(`UPDATE audit_events SET action = 'x' WHERE id = $1`, [row.id]),
    ).rejects.toThrow(/append-only/);
    await expect(t.db.query(`DELETE FROM audit_events WHERE id = $1`, [row.id])).rejects.toThrow(
      /append-only/,
    );
    await expect(t.db.query('TRUNCATE audit_events')).rejects.toThrow(/append-only/);
    expect(await rowsFor(u.user.id)).toHaveLength(1);
  });

  it('records API key creation and revocation without the secret', async () => {
    const u = await newUser(t);
    const created = await t.http
      .post('/api/keys')
      .set(u.auth)
      .send({ name: 'CI', scopes: ['ai'] })
      .expect(201);
    await t.http.delete(`/api/keys/${created.body.id}`).set(u.auth).expect(200);
    const rows = await rowsFor(created.body.id);
    expect(rows.map((r: { action: string }) => r.action)).toEqual([
      'api_key.create',
      'api_key.revoke',
    ]);
    expect(rows[0]).toMatchObject({ actorId: u.user.id, actorType: 'user', targetType: 'api_key' });
    expect(rows[0].details).toEqual({ name: 'CI', prefix: created.body.prefix, scopes: ['ai'] });
    expect(JSON.stringify(rows)).not.toContain(created.body.key);
    // Revoking again is a 404 and writes nothing.
    await t.http.delete(`/api/keys/${created.body.id}`).set(u.auth).expect(404);
    expect(await rowsFor(created.body.id)).toHaveLength(2);
  });

  it('records an administrator turning off a user’s two-factor authentication', async () => {
    clock.startAt(1);
    const u = await newUser(t);
    await enrol(t, clock, u.token);
    await t.http.delete(`/api/users/${u.user.id}/2fa`).set(admin.auth).expect(200);
    const rows = await rowsFor(u.user.id);
    expect(rows).toEqual([
      expect.objectContaining({
        action: 'two_factor.reset',
        actorId: admin.user.id,
        actorType: 'admin',
      }),
    ]);
    // Off already: 409, no second row.
    await t.http.delete(`/api/users/${u.user.id}/2fa`).set(admin.auth).expect(409);
    expect(await rowsFor(u.user.id)).toHaveLength(1);
  });

  it('records team ownership changes, not other role changes', async () => {
    const owner = await newUser(t);
    const member = await newUser(t);
    const team = await newTeam(t, owner, { members: [[member, 'MEMBER']] });
    const path = `/api/teams/${team.id}/members/${member.user.id}`;
    await t.http.patch(path).set(owner.auth).send({ role: 'ADMIN' }).expect(200);
    expect(await rowsFor(team.id)).toEqual([]);
    await t.http.patch(path).set(owner.auth).send({ role: 'OWNER' }).expect(200);
    // The first owner steps down: the team keeps an OWNER.
    await t.http
      .patch(`/api/teams/${team.id}/members/${owner.user.id}`)
      .set(owner.auth)
      .send({ role: 'MEMBER' })
      .expect(200);
    const rows = await rowsFor(team.id);
    expect(rows.map((r: { details: unknown }) => r.details)).toEqual([
      { userId: member.user.id, from: 'ADMIN', to: 'OWNER' },
      { userId: owner.user.id, from: 'OWNER', to: 'MEMBER' },
    ]);
    expect(rows[0]).toMatchObject({ action: 'team.ownership.change', targetType: 'team' });
  });

  describe('GET /api/admin/audit', () => {
    it('is for admins only', async () => {
      const u = await newUser(t);
      await t.http.get('/api/admin/audit').expect(401);
      await t.http.get('/api/admin/audit').set(u.auth).expect(403);
    });

    it('filters by actor, target, action and time range, newest first, in pages', async () => {
      const other = await newUser(t, { role: 'ADMIN' });
      const u = await newUser(t);
      const start = (await t.db.query('SELECT clock_timestamp() AS now'))[0].now as Date;
      for (const credits of [10, 20, 30])
        await t.http.put(`/api/users/${u.user.id}`).set(other.auth).send({ credits }).expect(200);
      await t.http.put(`/api/users/${u.user.id}`).set(admin.auth).send({ plan: 'PRO' }).expect(200);

      const get = (q: Record<string, string | number>) =>
        t.http.get('/api/admin/audit').set(admin.auth).query(q).expect(200);
      const mine = await get({ actorId: other.user.id });
      expect(mine.body.data.map((e: any) => e.details.to)).toEqual([30, 20, 10]);
      expect(mine.body.data[0]).toEqual({
        id: expect.any(String),
        at: expect.any(String),
        actorId: other.user.id,
        actorType: 'admin',
        action: 'user.credits.adjust',
        targetType: 'user',
        targetId: u.user.id,
        details: { from: 20, to: 30 },
        requestId: expect.any(String),
        ip: expect.any(String),
      });
      const plan = await get({ targetId: u.user.id, action: 'user.plan.change' });
      expect(plan.body.data).toHaveLength(1);
      expect((await get({ targetType: 'user', targetId: u.user.id })).body.data).toHaveLength(4);
      expect(
        (await get({ targetId: u.user.id, to: new Date(start).toISOString() })).body.data,
      ).toEqual([]);
      expect(
        (await get({ targetId: u.user.id, from: new Date(start).toISOString() })).body.data,
      ).toHaveLength(4);

      const first = await get({ targetId: u.user.id, limit: 3 });
      expect(first.body.data).toHaveLength(3);
      const second = await get({ targetId: u.user.id, limit: 3, cursor: first.body.nextCursor });
      expect(second.body).toEqual({ data: [expect.any(Object)], nextCursor: null });
      expect(second.body.data[0].details).toEqual({ from: 100, to: 10 });
    });

    it('refuses bad filters with 400', async () => {
      for (const q of [{ action: 'user.delete' }, { actorId: 'x' }, { from: 'yesterday' }])
        await t.http.get('/api/admin/audit').set(admin.auth).query(q).expect(400);
    });
  });
});
