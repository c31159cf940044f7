import { randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { rid } from './stripe-events';

/**
 * Alipay and WeChat Pay on the local Stripe server, shaped after the API reference of version
 * 2024-06-20:
 * - confirming an intent (`confirm=true` with `payment_method_data[type]`) leaves it
 *   `requires_action` with `next_action.type` `alipay_handle_redirect` (`{native_data,
 *   native_url, return_url, url}`; `return_url` is required) or `wechat_pay_display_qr_code`
 *   (`{data, hosted_instructions_url, image_data_url, image_url_png, image_url_svg}`;
 *   `payment_method_options[wechat_pay][client]` is required: `web`, `ios` or `android`);
 * - the customer authorises at `url` (Alipay) or by scanning (WeChat Pay); the result arrives
 *   later (`processing`, then `succeeded` or a failed attempt back at `requires_payment_method`);
 * - their refunds are asynchronous: created `pending`, settled later (`charge.refund.updated`).
 */
export const WALLET_METHODS = ['alipay', 'wechat_pay'] as const;
const WALLET_CURRENCIES: Record<string, string[]> = {
  alipay: ['cny', 'aud', 'cad', 'eur', 'gbp', 'hkd', 'jpy', 'myr', 'nzd', 'sgd', 'usd'],
  wechat_pay: [
    'cny',
    'aud',
    'cad',
    'chf',
    'dkk',
    'eur',
    'gbp',
    'hkd',
    'jpy',
    'nok',
    'sek',
    'sgd',
    'usd',
  ],
};
const WECHAT_CLIENTS = ['web', 'ios', 'android'];
/** A 1×1 PNG: stands for the QR code image Stripe renders. */
const PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

type Invalid = { error: { type: string; message: string; code?: string; param?: string } };
const invalid = (message: string, param?: string, code?: string): Invalid => ({
  error: {
    type: 'invalid_request_error',
    message,
    ...(param ? { param } : {}),
    ...(code ? { code } : {}),
  },
});

export const isWallet = (types: unknown): boolean =>
  Array.isArray(types) && types.some((t) => (WALLET_METHODS as readonly string[]).includes(t));

/**
 * Checks the wallet parameters of a create call (form body `b`) and, when `confirm=true`,
 * confirms `pi` in place: a payment method, `requires_action` and the method's `next_action`.
 * `base` is this server's URL (Alipay's authorisation page is served here). Null when fine.
 */
export function confirmWallet(
  pi: Record<string, any>,
  b: Record<string, any>,
  base: string,
): Invalid | null {
  const types: string[] = b.payment_method_types ?? ['card'];
  pi.payment_method_types = types;
  if (!isWallet(types)) return null;
  const method = types[0];
  if (!WALLET_CURRENCIES[method]?.includes(pi.currency))
    return invalid(
      `The currency provided (${pi.currency}) is invalid for one or more payment method types on this PaymentIntent.`,
      'currency',
    );
  if (b.confirm !== 'true') return null;
  if (b.payment_method_data?.type !== method)
    return invalid(
      'Missing required param: payment_method_data[type].',
      'payment_method_data[type]',
    );
  if (method === 'alipay' && !b.return_url)
    return invalid('Missing required param: return_url.', 'return_url');
  const client = b.payment_method_options?.wechat_pay?.client;
  if (method === 'wechat_pay' && !WECHAT_CLIENTS.includes(client))
    return invalid(
      'Missing required param: payment_method_options[wechat_pay][client].',
      'payment_method_options[wechat_pay][client]',
    );
  Object.assign(pi, {
    status: 'requires_action',
    payment_method: rid('pm'),
    payment_method_options: method === 'wechat_pay' ? { wechat_pay: { app_id: null, client } } : {},
    next_action:
      method === 'alipay'
        ? {
            type: 'alipay_handle_redirect',
            alipay_handle_redirect: {
              native_data: null,
              native_url: null,
              return_url: b.return_url,
              url: `${base}/alipay/authorize/${pi.id}`,
            },
          }
        : {
            type: 'wechat_pay_display_qr_code',
            wechat_pay_display_qr_code: {
              data: `weixin://wxpay/bizpayurl?pr=${randomBytes(6).toString('hex')}`,
              hosted_instructions_url: `${base}/wechat_pay/instructions/${pi.id}`,
              image_data_url: `data:image/png;base64,${PNG}`,
              image_url_png: `${base}/wechat_pay/qr/${pi.id}.png`,
              image_url_svg: `${base}/wechat_pay/qr/${pi.id}.svg`,
            },
          },
  });
  return null;
}

/** Where Alipay sends the customer back: `return_url` plus Stripe's redirect parameters. */
export function alipayReturn(pi: Record<string, any>, outcome: 'succeeded' | 'failed'): string {
  const url = new URL(pi.next_action.alipay_handle_redirect.return_url);
  url.searchParams.set('payment_intent', pi.id);
  url.searchParams.set('payment_intent_client_secret', pi.client_secret);
  url.searchParams.set('redirect_status', outcome);
  return url.toString();
}

/** The first method of the intent: what the charge's `payment_method_details.type` says. */
export const methodOf = (pi: Record<string, any>): string => pi.payment_method_types?.[0] ?? 'card';

/** A failed attempt: back at `requires_payment_method` with `last_payment_error`. */
export function failAttempt(pi: Record<string, any>, message = 'The customer did not pay.'): void {
  Object.assign(pi, {
    status: 'requires_payment_method',
    next_action: null,
    last_payment_error: {
      type: 'invalid_request_error',
      code: 'payment_intent_payment_attempt_failed',
      message,
      payment_method: { id: pi.payment_method, object: 'payment_method', type: methodOf(pi) },
    },
  });
}

/** A refund of `amount` minor units: `pending` for a wallet, `succeeded` for a card. */
export function refundObject(
  pi: Record<string, any>,
  amount: number,
  metadata = {},
): Record<string, any> {
  return {
    id: rid('re'),
    object: 'refund',
    amount,
    charge: pi.latest_charge,
    created: Math.floor(Date.now() / 1000),
    currency: pi.currency,
    metadata,
    payment_intent: pi.id,
    reason: null,
    status: isWallet(pi.payment_method_types) ? 'pending' : 'succeeded',
  };
}

/** The intent's charge as the `charge.*` events carry it (amounts in minor units). */
export function chargeOf(pi: Record<string, any>): Record<string, any> {
  const amountRefunded = pi.amount_refunded ?? 0;
  return {
    id: pi.latest_charge,
    object: 'charge',
    amount: pi.amount,
    amount_captured: pi.amount,
    amount_refunded: amountRefunded,
    captured: true,
    created: Math.floor(Date.now() / 1000),
    currency: pi.currency,
    livemode: false,
    metadata: pi.metadata ?? {},
    paid: true,
    payment_intent: pi.id,
    payment_method_details: { type: methodOf(pi), [methodOf(pi)]: {} },
    refunded: amountRefunded >= pi.amount,
    status: 'succeeded',
  };
}

/**
 * The Alipay authorisation page the customer is redirected to (no API key: it is the
 * customer's browser): pays (or, with `?outcome=fail`, fails) the intent, then redirects to
 * its return_url with Stripe's `payment_intent`, `…_client_secret` and `redirect_status`.
 * `server.onAlipay` runs before the redirect.
 */
export async function alipayAuthorize(
  server: {
    paymentIntents: Map<string, Record<string, any>>;
    succeedPaymentIntent(id: string): Record<string, any>;
    onAlipay?: (pi: Record<string, any>) => Promise<void>;
  },
  id: string,
  fail: boolean,
  res: ServerResponse,
): Promise<void> {
  const pi = server.paymentIntents.get(id);
  if (!pi || pi.status !== 'requires_action') {
    res.writeHead(404, { 'content-type': 'text/plain' }).end('No such payment');
    return;
  }
  const location = alipayReturn(pi, fail ? 'failed' : 'succeeded');
  if (fail) failAttempt(pi);
  else server.succeedPaymentIntent(id);
  await server.onAlipay?.(pi).catch(() => undefined);
  res.writeHead(302, { location }).end();
}
