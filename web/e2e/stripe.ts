import { signatureFor, stripeEvent } from '../../test/servers/stripe-events';
import { StripeTestServer } from '../../test/servers/stripe-server';

/** The webhook signing secret the suite's service and its tests share. */
export const WEBHOOK_SECRET = 'whsec_console_e2e';

/** Posts `event`, signed with WEBHOOK_SECRET, to the service's webhook; its HTTP status. */
export async function deliverEvent(
  serviceUrl: string,
  event: Record<string, unknown>,
): Promise<number> {
  const payload = JSON.stringify(event);
  const res = await fetch(`${serviceUrl}/api/webhooks/payment`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'stripe-signature': signatureFor(payload, WEBHOOK_SECRET),
    },
    body: payload,
  });
  await res.arrayBuffer();
  return res.status;
}

/**
 * The local Stripe server of the e2e tests, playing the processor for the console: Alipay's
 * authorisation page (the purchase's `nextAction.url`) pays the intent and delivers the signed
 * `payment_intent.succeeded` webhook before it sends the browser back to the return URL.
 */
export async function startStripe(serviceUrl: () => string): Promise<StripeTestServer> {
  const stripe = new StripeTestServer();
  stripe.onAlipay = async (pi) => {
    const type =
      pi.status === 'succeeded' ? 'payment_intent.succeeded' : 'payment_intent.payment_failed';
    await deliverEvent(serviceUrl(), stripeEvent(type, pi));
  };
  return stripe.start(0);
}
