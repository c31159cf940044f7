/** What the local Stripe server records and answers, and Stripe's form encoding. */

export interface StripeRecordedRequest {
  method: string;
  /** Path without the query string, e.g. `/v1/payment_intents`. */
  path: string;
  query: Record<string, any>;
  /** The form body, parsed with bracket notation. */
  body: Record<string, any>;
  stripeVersion?: string;
  idempotencyKey?: string;
  authorization?: string;
}

/** A Stripe error answer: `{error: {type, code, message, ...}}` with an HTTP status. */
export interface StripeFailure {
  status: number;
  error: { type: string; message: string; code?: string; param?: string; decline_code?: string };
}

/** Parses Stripe's form encoding (`items[0][price]=x&expand[0]=y`) into objects and arrays. */
export function parseForm(raw: string): Record<string, any> {
  const root: Record<string, any> = {};
  for (const pair of raw.split('&').filter(Boolean)) {
    const [k, v = ''] = pair.split('=').map((s) => decodeURIComponent(s.replace(/\+/g, ' ')));
    const keys = (k.match(/^[^[]+|\[[^\]]*\]/g) ?? []).map((p) => p.replace(/^\[|\]$/g, ''));
    let node: any = root;
    keys.forEach((key, i) => {
      if (i === keys.length - 1) node[key] = v;
      else node = node[key] ??= /^\d+$/.test(keys[i + 1]) ? [] : {};
    });
  }
  return root;
}
