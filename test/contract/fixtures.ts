import { ModelCatalogue } from '../../src/models/model-catalogue';
import { newChat, newTeam, newUser } from '../support/factories';
import type { TestApp } from '../support/test-app';

/** What the contract run's hooks send: an admin's session and ids of things it owns. */
export interface ContractFixtures {
  /** Bearer token of an ADMIN (admin routes, and every own-data route as that user). */
  adminToken: string;
  userId: string;
  /** A team the admin owns, with `chatId` shared to it. */
  teamId: string;
  /** A chat with two messages. */
  chatId: string;
  /** The public link token of `chatId`. */
  shareToken: string;
  /** An upstream row (never called: the run reads it back only). */
  upstreamId: string;
  /** A secret of an API key of the admin (routes that describe the calling key, `/v1/key`). */
  apiKey: string;
  /** The first model of the catalogue (its price versions). */
  modelId: string;
  /** A batch of redemption codes (never exported here). */
  redemptionBatchId: string;
}

/** Creates the fixtures through the services and the HTTP API, on the app under test. */
export async function makeFixtures(t: TestApp): Promise<ContractFixtures> {
  const admin = await newUser(t, { role: 'ADMIN', name: 'Contract Admin' });
  const team = await newTeam(t, admin, { name: 'Contract team' });
  const chat = await newChat(t, admin, {
    title: 'Contract chat',
    messages: ['What is a contract test?', 'A check of answers against their description.'],
    teamId: team.id,
  });
  const share = await t.http.post(`/api/chats/${chat.id}/share`).set(admin.auth).expect(201);
  const upstream = await t.http
    .post('/api/admin/upstreams')
    .set(admin.auth)
    .send({
      provider: 'openai-compatible',
      name: 'contract-upstream',
      baseUrl: 'http://127.0.0.1:9/v1',
      apiKey: 'sk-contract-unused',
    })
    .expect(201);
  const batch = await t.http
    .post('/api/admin/redemption-batches')
    .set(admin.auth)
    .send({ name: 'contract-batch', credits: 10, quantity: 2 })
    .expect(201);
  const key = await t.http
    .post('/api/keys')
    .set(admin.auth)
    .send({ name: 'contract key' })
    .expect(201);
  return {
    adminToken: admin.token,
    userId: admin.user.id,
    teamId: team.id,
    chatId: chat.id,
    shareToken: (share.body as { data: { token: string } }).data.token,
    upstreamId: (upstream.body as { id: string }).id,
    apiKey: (key.body as { key: string }).key,
    modelId: t.app.get(ModelCatalogue).list()[0].id,
    redemptionBatchId: (batch.body as { id: string }).id,
  };
}
