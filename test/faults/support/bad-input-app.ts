import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { JOBS_SCHEMA } from '../../../src/jobs/jobs.service';
import { TeamInvitationsService } from '../../../src/teams/team-invitations.service';
import { StripeTestServer } from '../../servers/stripe-server';
import { newChat, newTeam, newUser, sessionOf } from '../../support/factories';
import { startProviders, type Providers } from '../../support/providers';
import { createTestApp, type TestApp } from '../../support/test-app';
import { call } from './http';
import type { FuzzWorld, OpenApiDoc } from './openapi-fuzz';

export const WEBHOOK_SECRET = 'whsec_fuzz_local';

/** The running service a bad-input file sweeps, filled in by the hooks of `useSweepApp`. */
export interface SweepApp {
  t: TestApp;
  /** `http://127.0.0.1:<port>` of the listening app. */
  base: string;
  /** The live OpenAPI document (GET /api/docs-json). */
  doc: OpenApiDoc;
  /** A fingerprint of every table's whole contents and of the upload directory. */
  snapshot(): Promise<Record<string, string>>;
  /** Fresh users, chats, a team, an invitation, an upload and a batch of redemption codes for one route's runs. */
  newWorld(): Promise<FuzzWorld>;
}

/** Jobs due now (queued, retrying or running): an accepted request's effects still to come. */
const DUE_JOBS = `SELECT count(*)::int AS n FROM ${JOBS_SCHEMA}.job
  WHERE state IN ('created', 'retry', 'active') AND start_after <= now()`;

/**
 * Waits until no job is due, so that a job queued by an earlier accepted request (a password
 * reset token written by its mail job, say) lands before a snapshot, not inside the next
 * request's before/after pair. Bounded by a count of looks: a job that never finishes shows up
 * as the write it makes, not as a hang here.
 */
async function queueIdle(t: TestApp): Promise<void> {
  for (let i = 0; i < 400; i++) {
    const [{ n }] = await t.db.query(DUE_JOBS);
    if (n === 0) return;
    await new Promise((r) => setTimeout(r, 25));
  }
}

/**
 * Registers beforeAll/afterAll hooks that boot the real app (providers, a Stripe double and a
 * temporary upload directory), listening on a port, and returns the object they fill in: read
 * its fields inside tests only.
 */
export function useSweepApp(): SweepApp {
  const s = {} as SweepApp;
  const stripe = new StripeTestServer();
  let p: Providers;
  let uploadDir: string;
  let snapshotSql: string;
  let models: string[];

  s.snapshot = async () => {
    await queueIdle(s.t);
    const [row] = await s.t.db.query(snapshotSql);
    return { ...row, uploadsOnDisk: readdirSync(uploadDir).sort().join('|') };
  };

  s.newWorld = async () => {
    const { t } = s;
    const user = await newUser(t, { credits: 1000 });
    const admin = await newUser(t, { role: 'ADMIN' });
    const member = await newUser(t);
    const team = await newTeam(t, user, { members: [[member, 'MEMBER']] });
    const chat = await newChat(t, user, { messages: ['hello', 'hi there'] });
    const shared = await newChat(t, member, { teamId: team.id });
    const invitation = await t.app
      .get(TeamInvitationsService)
      .create(sessionOf(user), team.id, { email: 'invitee@example.com' });
    const upload = await t.http
      .post('/api/upload')
      .set(user.auth)
      .attach('file', Buffer.from('plain text'), 'notes.txt')
      .expect(200);
    const batch = await t.http
      .post('/api/admin/redemption-batches')
      .set(admin.auth)
      .send({ name: 'fuzz batch', credits: 5, quantity: 2 })
      .expect(201);
    return {
      ids: [
        user.user.id,
        admin.user.id,
        member.user.id,
        team.id,
        chat.id,
        shared.id,
        invitation.invitation.id,
        upload.body.data.filename,
        batch.body.id,
      ],
      bearers: [user.auth.Authorization, admin.auth.Authorization, member.auth.Authorization],
      models,
      tokens: [invitation.token, 'price_basic', 'price_pro', 'pi_unknown'],
      webhookSecret: WEBHOOK_SECRET,
    };
  };

  beforeAll(async () => {
    uploadDir = mkdtempSync(join(tmpdir(), 'fuzz-uploads-'));
    p = await startProviders();
    await stripe.start();
    s.t = await createTestApp({
      ...p.env,
      STRIPE_SECRET_KEY: stripe.secretKey,
      STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
      STRIPE_API_BASE: stripe.url,
      STRIPE_PRICE_BASIC: 'price_basic',
      STRIPE_PRICE_PRO: 'price_pro',
      UPLOAD_DIR: uploadDir,
      AI_SSE_PING_MS: '1000',
    });
    const server = s.t.app.getHttpServer();
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    s.base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    s.doc = (await call(s.base, 'GET', '/api/docs-json')).json;
    models = (await call(s.base, 'GET', '/api/ai/models')).json.models.map(
      (m: { id: string }) => m.id,
    );
    const tables: { name: string }[] = await s.t.db.query(
      `SELECT table_name AS name FROM information_schema.tables
       WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY 1`,
    );
    snapshotSql = `SELECT ${tables
      .map(
        ({ name }) =>
          `(SELECT md5(COALESCE(string_agg(r::text, '|' ORDER BY r::text), '')) FROM "${name}" r) AS "${name}"`,
      )
      .join(', ')}`;
  });
  afterAll(async () => {
    await s.t?.close();
    await p?.stop();
    await stripe.stop();
    rmSync(uploadDir, { recursive: true, force: true });
  });
  return s;
}
