import { USAGE_SYNC_MS } from '../../../src/upstreams/upstream-usage';
import { ledgerOf, newUser, type TestUser } from '../../support/factories';
import { HandClock } from '../../support/hand-clock';
import { startProviders, type Providers } from '../../support/providers';
import { createTestApp, type TestApp } from '../../support/test-app';

/**
 * An upstream's `rpm` and `tpm` ceilings as a client meets them: while every upstream of a model
 * is at its ceiling the call is refused with 429 and Retry-After (the next minute), nothing is
 * sent upstream and nothing is charged; the next minute serves again.
 */
describe('Upstreams: requests and tokens per minute ceilings', () => {
  let p: Providers;
  let t: TestApp;
  let admin: TestUser;
  let user: TestUser;
  let upstreamId: string;
  const clock = new HandClock();
  const ask = { modelId: 'claude-haiku-4-5', messages: [{ role: 'user', content: 'Hi' }] };
  const generate = () => t.http.post('/api/ai/generate').set(user.auth).send(ask);
  const toNextMinute = () => clock.tick(60_000 - (clock.at.getTime() % 60_000));
  const secondsLeft = () => Math.ceil((60_000 - (clock.at.getTime() % 60_000)) / 1000);
  const openHolds = async () =>
    Number((await t.db.query('SELECT count(*) FROM credit_holds'))[0].count);

  beforeAll(async () => {
    p = await startProviders();
    // Only the row serves Anthropic's models: no environment upstream to fall back on.
    t = await createTestApp({ ...p.env, ANTHROPIC_API_KEY: '' }, { clock });
    admin = await newUser(t, { role: 'ADMIN' });
    user = await newUser(t, { credits: 1000 });
    const res = await t.http
      .post('/api/admin/upstreams')
      .set(admin.auth)
      .send({
        provider: 'anthropic',
        name: 'claude',
        baseUrl: p.anthropic.url,
        apiKey: 'sk-ant-row',
        rpm: 2,
      })
      .expect(201);
    upstreamId = res.body.id;
  });
  afterAll(async () => {
    await t.close();
    await p.stop();
  });

  it('refuses the third request of a minute with 429 and Retry-After, charging nothing, and serves the next minute', async () => {
    toNextMinute();
    clock.tick(15_000);
    await generate().expect(200);
    await generate().expect(200);
    const before = await ledgerOf(t, user.user.id);

    const refused = await generate().expect(429);
    expect(refused.body.code).toBe('RATE_LIMIT');
    expect(refused.headers['retry-after']).toBe(String(secondsLeft()));
    const stream = await t.http.post('/api/ai/stream').set(user.auth).send(ask).expect(429);
    expect(stream.headers['retry-after']).toBe(String(secondsLeft()));
    const wire = await t.http
      .post('/v1/messages')
      .set(user.auth)
      .send({ model: ask.modelId, max_tokens: 50, messages: ask.messages })
      .expect(429);
    expect(wire.headers['retry-after']).toBe(String(secondsLeft()));
    expect(p.anthropic.requests).toHaveLength(2);
    expect(await ledgerOf(t, user.user.id)).toEqual(before);
    expect(before.credits).toBe(before.ledgerSum);
    expect(await openHolds()).toBe(0);

    toNextMinute();
    await generate().expect(200);
    expect(p.anthropic.requests).toHaveLength(3);
  });

  it('refuses once the answers’ tokens reach the tokens-per-minute ceiling', async () => {
    // Each answer of the test server is 10 prompt + 20 completion tokens.
    await t.http
      .patch(`/api/admin/upstreams/${upstreamId}`)
      .set(admin.auth)
      .send({ rpm: null, tpm: 50 })
      .expect(200);
    toNextMinute();
    const sent = p.anthropic.requests.length;
    await generate().expect(200);
    const streamed = await t.http.post('/api/ai/stream').set(user.auth).send(ask).expect(200);
    expect(streamed.text).toBe('Hello from the test model.');
    // The refused request's routing synchronises this instance's counts with the table.
    clock.tick(USAGE_SYNC_MS);
    expect((await generate().expect(429)).body.code).toBe('RATE_LIMIT');
    expect(p.anthropic.requests).toHaveLength(sent + 2);
    const [row] = await t.db.query(
      `SELECT requests, tokens FROM upstream_usage WHERE "upstreamId" = $1 ORDER BY minute DESC LIMIT 1`,
      [upstreamId],
    );
    expect(row).toEqual({ requests: 2, tokens: '60' });
    const listed = await t.http
      .get(`/api/admin/upstreams/${upstreamId}`)
      .set(admin.auth)
      .expect(200);
    expect(listed.body).toMatchObject({ tpm: 50, minuteUsage: { requests: 2, tokens: 60 } });
    const books = await ledgerOf(t, user.user.id);
    expect(books.credits).toBe(books.ledgerSum);
  });
});
