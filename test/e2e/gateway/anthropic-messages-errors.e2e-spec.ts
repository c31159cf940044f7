import Anthropic from '@anthropic-ai/sdk';
import { ledgerOf, newUser } from '../../support/factories';
import { caught, useMessagesBed } from '../../support/messages-bed';
import { waitFor } from '../../support/wait';

/**
 * Failures of `/v1/messages` as the Anthropic SDK raises them (authentication, billing, rate
 * limits, bad input, streams cut before and after their first token), with the money checked.
 */
describe('Anthropic-compatible /v1/messages: errors and cut streams', () => {
  const bed = useMessagesBed();

  it('raises AuthenticationError, PaymentRequiredError (402 billing_error) and RateLimitError', async () => {
    const bad = await caught(
      bed.client('sk-not-a-real-key-000000000000').messages.create({
        model: 'gpt-4o',
        max_tokens: 10,
        messages: [{ role: 'user', content: 'Hi' }],
      }),
    );
    expect(bad).toBeInstanceOf(Anthropic.AuthenticationError);
    expect(bad.type).toBe('authentication_error');

    const poor = await newUser(bed.t, { credits: 5 });
    const { key: poorKey } = await bed.keyFor(poor);
    const billing = await caught(
      bed.client(poorKey).messages.create({
        model: 'gpt-4o',
        max_tokens: 4000,
        messages: [{ role: 'user', content: 'Hi' }],
      }),
    );
    expect(billing).toBeInstanceOf(Anthropic.PaymentRequiredError);
    expect(billing.status).toBe(402);
    expect(billing.type).toBe('billing_error');
    expect(billing.errorCode).toBe('insufficient_credits');
    expect(await bed.consumptions(poor.user.id)).toEqual([]);

    const rich = await newUser(bed.t, { credits: 1000 });
    // One hold of gpt-4o with max_tokens 1000: ceil((1 + 1000) × 0.01) = 11 credits.
    const limited = await bed.keyFor(rich, { dailyCreditLimit: 11 });
    const ask = {
      model: 'gpt-4o',
      max_tokens: 1000,
      messages: [{ role: 'user' as const, content: 'Hi' }],
    };
    await bed.client(limited.key).messages.create(ask);
    const over = await caught(bed.client(limited.key).messages.create(ask));
    expect(over).toBeInstanceOf(Anthropic.RateLimitError);
    expect(over.type).toBe('rate_limit_error');
    expect(over.errorCode).toBe('key_daily_limit_reached');
    expect(Number(over.headers?.get('retry-after'))).toBeGreaterThan(0);
    expect(bed.p.openai.requests).toHaveLength(1);
  });

  it('charges a stream the client aborts for what was produced, leaving no hold', async () => {
    const u = await newUser(bed.t);
    const { key } = await bed.keyFor(u);
    // The upstream goes silent after two chunks: only the abort ends its request.
    bed.p.anthropic.reply = { text: 'a b c d e f', chunks: 6, stallAfterChunks: 2 };
    const stream = bed.client(key).messages.stream({
      model: 'claude-haiku-4-5',
      max_tokens: 50,
      messages: [{ role: 'user', content: 'Go' }],
    });
    let seen = '';
    stream.on('text', (delta) => {
      seen += delta;
      stream.abort();
    });
    await stream.done().catch(() => undefined);
    expect(seen.length).toBeGreaterThan(0);
    expect(await waitFor(async () => bed.p.anthropic.requests[0]?.aborted === true)).toBe(true);
    expect(await waitFor(async () => (await bed.openHolds()) === 0)).toBe(true);
    const [entry] = await bed.consumptions(u.user.id);
    expect(entry.description).toMatch(/estimated/);
    expect(entry.amount).toBeLessThan(0);
    const ledger = await ledgerOf(bed.t, u.user.id);
    expect(ledger.credits).toBe(ledger.ledgerSum);
  });

  it('fails a stream before its first token with the status, after it with an error event', async () => {
    const poor = await newUser(bed.t, { credits: 5 });
    const { key: poorKey } = await bed.keyFor(poor);
    const ask = { model: 'claude-haiku-4-5', messages: [{ role: 'user' as const, content: 'Go' }] };
    // gpt-4o holds ceil((1 + 4000) × 0.01) = 41 credits: more than the 5 there are.
    const before = await caught(
      bed
        .client(poorKey)
        .messages.stream({ ...ask, model: 'gpt-4o', max_tokens: 4000 })
        .finalMessage(),
    );
    expect(before).toBeInstanceOf(Anthropic.PaymentRequiredError);
    expect(before.type).toBe('billing_error');

    const u = await newUser(bed.t);
    const { key } = await bed.keyFor(u);
    // The upstream connection breaks after two chunks: the reply is cut mid-stream.
    bed.p.anthropic.reply = { text: 'a b c d e f', chunks: 6, cutAfterChunks: 2 };
    let seen = '';
    const stream = bed.client(key).messages.stream({ ...ask, max_tokens: 50 });
    stream.on('text', (delta) => (seen += delta));
    const after = await caught(stream.finalMessage());
    expect(after).toBeInstanceOf(Anthropic.APIError);
    expect(after.status).toBeUndefined(); // an `event: error` frame, after the 200
    expect(after.type).toEqual(expect.any(String));
    expect(seen.length).toBeGreaterThan(0);
    expect(await waitFor(async () => (await bed.openHolds()) === 0)).toBe(true);
    const ledger = await ledgerOf(bed.t, u.user.id);
    expect(ledger.credits).toBe(ledger.ledgerSum);
    expect(await bed.consumptions(u.user.id)).toHaveLength(1);
  });

  it("answers bad input with Anthropic's 400, writing nothing and calling no provider", async () => {
    const u = await newUser(bed.t);
    const { key } = await bed.keyFor(u);
    const before = await ledgerOf(bed.t, u.user.id);
    const send = (body: object) =>
      bed.t.http
        .post('/v1/messages')
        .set({ 'x-api-key': key, 'anthropic-version': '2023-06-01' })
        .send(body);
    const hi = [{ role: 'user', content: 'Hi' }];
    for (const [body, param] of [
      [{ model: 'gpt-4o', messages: hi }, 'max_tokens'],
      [{ model: 'gpt-4o', max_tokens: 10, messages: hi, top_k: 5 }, 'top_k'],
      [{ model: 'gpt-4o', max_tokens: 10, messages: hi, surprise: 1 }, 'surprise'],
      [
        {
          model: 'gpt-4o',
          max_tokens: 10,
          messages: hi,
          thinking: { type: 'enabled', budget_tokens: 2048 },
        },
        'thinking',
      ],
      [
        {
          model: 'gpt-4o',
          max_tokens: 10,
          messages: [{ role: 'user', content: [{ type: 'document' }] }],
        },
        'messages[0].content[0].type',
      ],
    ] as const) {
      const res = await send(body).expect(400);
      expect(res.body).toEqual({
        type: 'error',
        error: expect.objectContaining({
          type: 'invalid_request_error',
          message: expect.any(String),
          details: expect.objectContaining({ param }),
        }),
      });
    }
    const noKey = await bed.t.http.post('/v1/messages').send({}).expect(401);
    expect(noKey.body.error.type).toBe('authentication_error');
    expect(bed.p.openai.requests).toHaveLength(0);
    expect(await ledgerOf(bed.t, u.user.id)).toEqual(before);
    expect(await bed.openHolds()).toBe(0);
  });
});
