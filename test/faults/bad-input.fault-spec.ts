import { signatureFor } from '../servers/stripe-events';
import { newUser } from '../support/factories';
import { useSweepApp, WEBHOOK_SECRET } from './support/bad-input-app';
import { SWEEP_GROUPS } from './support/bad-input-groups';
import { routeKey, sweepRoutes } from './support/bad-input-sweep';
import { call } from './support/http';
import { routesOf } from './support/openapi-fuzz';

/**
 * The bad-input sweep runs per route group (bad-input-<group>.fault-spec.ts). Here, on one app:
 * the groups together sweep every route of the live document, once each; the inputs the sweep
 * found answering 500 before they were fixed stay refused; and the platform group's sweep.
 */
describe('bad input sweep over the OpenAPI document', () => {
  const s = useSweepApp();

  it('sweeps every route of the document in exactly one group', () => {
    const documented = routesOf(s.doc).map(routeKey).sort();
    const swept = Object.values(SWEEP_GROUPS).flat().map(String).sort();
    // A guard against an empty sweep: the document lists every controller's routes.
    expect(documented.length).toBeGreaterThanOrEqual(50);
    // Equal sorted lists: no route unswept, none swept twice, none that no longer exists.
    expect(swept).toEqual(documented);
  });

  // Inputs the sweep found answering 500 before they were fixed, kept as fixed cases:
  // [name, path, body, extra headers, signed as a webhook].
  const found: [string, string, string, Record<string, string>, boolean][] = [
    [
      'an amount in exponent notation',
      '/api/credits/purchase',
      '{"amount":1e-7,"credits":1}',
      {},
      false,
    ],
    ['a denormal amount', '/api/payment/create-payment-intent', '{"amount":3e-323}', {}, false],
    ['5 000 nested arrays', '/api/chats', '['.repeat(5000) + ']'.repeat(5000), {}, false],
    // PostgreSQL cannot store U+0000 in text (found on PUT /api/user/profile's name).
    ['a NUL character in text', '/api/chats', '{"title":"a\\u0000b"}', {}, false],
    ['a NUL character in a key', '/api/chats', '{"title":"ok","\\u0000":1}', {}, false],
    // jsonb cannot store a lone UTF-16 surrogate (found on key names and preferences).
    ['a lone surrogate in text', '/api/keys', '{"name":"a\\ud800b"}', {}, false],
    ['a lone surrogate in a key', '/api/chats', '{"title":"ok","\\udfff":1}', {}, false],
    [
      '3 000 nested objects',
      '/api/chats',
      '{"a":'.repeat(3000) + '1' + '}'.repeat(3000),
      {},
      false,
    ],
    [
      'a gzip-declared body that is not gzip',
      '/api/messages',
      '{"locale":"en"}',
      { 'content-encoding': 'gzip' },
      false,
    ],
    [
      'a signed webhook body of null',
      '/api/webhooks/payment',
      'null',
      { 'content-type': 'text/plain' },
      true,
    ],
    [
      'a signed webhook event with an empty id and a text created',
      '/api/webhooks/payment',
      '{"id":"","type":"payment_intent.succeeded","created":"","data":{"object":{}}}',
      {},
      true,
    ],
    [
      'a signed webhook event without data',
      '/api/webhooks/payment',
      '{"id":"evt_1","type":"charge.refunded"}',
      {},
      true,
    ],
  ];
  it.each(found)(
    'refuses %s with a 400 and writes nothing',
    async (_name, path, body, headers, signed) => {
      const u = await newUser(s.t);
      const before = await s.snapshot();
      const res = await call(s.base, 'POST', path, {
        headers: {
          authorization: u.auth.Authorization,
          'content-type': 'application/json',
          ...(signed ? { 'stripe-signature': signatureFor(body, WEBHOOK_SECRET) } : {}),
          ...headers,
        },
        body,
      });
      expect({ status: res.status, code: res.json?.code }).toEqual({
        status: 400,
        code: 'VALIDATION_FAILED',
      });
      expect(await s.snapshot()).toEqual(before);
    },
  );

  sweepRoutes('platform', SWEEP_GROUPS.platform, () => s);
});
