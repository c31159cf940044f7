import { chargeObject, signatureFor, stripeEvent } from './stripe-events';
import { StripeTestServer } from './stripe-server';
import { chargeOf, isWallet } from './stripe-wallets';

/**
 * `npx ts-node --transpile-only test/servers/stripe-server.cli.ts`: the local Stripe server from
 * the tests on a fixed port, for trying the payment flow without a Stripe account. Besides
 * the API, it plays the customer and the processor's webhook sender:
 *
 *   POST /_test/payment_intents/{id}/succeed       pay → deliver payment_intent.succeeded
 *   POST /_test/payment_intents/{id}/process       (wallets) deliver payment_intent.processing
 *   POST /_test/payment_intents/{id}/fail          deliver payment_intent.payment_failed
 *   POST /_test/payment_intents/{id}/cancel        deliver payment_intent.canceled
 *   POST /_test/payment_intents/{id}/refunded      deliver charge.refunded (refunds so far)
 *   POST /_test/refunds/{id}/succeed | fail        settle a pending Alipay/WeChat Pay refund →
 *                                                  deliver charge.refund.updated
 *   POST /_test/payment_intents/{id}/dispute       the cardholder disputes the charge → deliver
 *                                                  charge.dispute.created (`event.object`: dp_…)
 *   POST /_test/disputes/{id}/won | lost           the issuer decides → charge.dispute.closed
 *   GET  /alipay/authorize/{id}                    Alipay's page (the intent's next_action
 *                                                  url): pays, delivers payment_intent.succeeded
 *                                                  and redirects to the return_url
 *   POST /_test/subscriptions/{id}/activate        pay → deliver customer.subscription.updated
 *   POST /_test/subscriptions/{id}/cancel          deliver customer.subscription.deleted
 *   GET  /checkout/pay/{id}?method=card|alipay|wechat_pay   the Checkout page (the session's url):
 *                                                  pays, delivers the session's events and
 *                                                  redirects to its success URL
 *   POST /_test/checkout/sessions/{id}/complete | complete_async | settle | settle_failed
 *                                                  pay (card), pay with a delayed method, then
 *                                                  settle it → deliver the session's events
 *   POST /_test/subscriptions/{id}/renew | fail_renewal | upgrade/{price}
 *                                                  a paid renewal (invoice.paid), a failed one
 *                                                  (invoice.payment_failed), a price change
 *
 * Each answers the event (with its object's id) and the service's webhook answer. Variables: MOCK_STRIPE_PORT (12111),
 * WEBHOOK_URL (http://127.0.0.1:3000/api/webhooks/payment), STRIPE_WEBHOOK_SECRET
 * (whsec_local), STRIPE_SECRET_KEY (sk_test_local).
 */
async function main(): Promise<void> {
  const secret = process.env.STRIPE_WEBHOOK_SECRET ?? 'whsec_local';
  const webhookUrl = process.env.WEBHOOK_URL ?? 'http://127.0.0.1:3000/api/webhooks/payment';
  const server = new StripeTestServer(process.env.STRIPE_SECRET_KEY ?? 'sk_test_local');

  const send = async (type: string, object: Record<string, any>) => {
    const event = stripeEvent(type, object);
    const payload = JSON.stringify(event);
    const res = await fetch(webhookUrl, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'stripe-signature': signatureFor(payload, secret),
      },
      body: payload,
    });
    const answer = { status: res.status, body: await res.text() };
    return {
      status: 200,
      body: { event: { id: event.id, type, object: object.id }, webhook: answer },
    };
  };

  const sendAll = async (events: [string, Record<string, any>][]) => {
    const answers = [];
    for (const [type, object] of events) answers.push((await send(type, object)).body);
    return { status: 200, body: { deliveries: answers } };
  };
  server.checkout.onPaid = async (outcome) => {
    await sendAll(outcome.events);
  };

  server.control = async (method, path) => {
    const cs = /^\/_test\/checkout\/sessions\/(\w+)\/(\w+)$/.exec(path);
    if (method === 'POST' && cs) {
      const [, session, step] = cs;
      if (step === 'complete') return sendAll(server.checkout.complete(session).events);
      if (step === 'complete_async')
        return sendAll(server.checkout.complete(session, { async: true }).events);
      if (step === 'settle') return sendAll(server.checkout.settle(session, 'succeeded').events);
      if (step === 'settle_failed')
        return sendAll(server.checkout.settle(session, 'failed').events);
    }
    const [, , resource, id, action, arg] = path.split('/');
    if (method === 'POST' && resource === 'subscriptions' && server.subscriptions.has(id)) {
      if (action === 'renew') return sendAll(server.checkout.renew(id).events);
      if (action === 'fail_renewal') return sendAll(server.checkout.failRenewal(id).events);
      if (action === 'upgrade' && arg) return sendAll(server.checkout.changePrice(id, arg).events);
    }
    const notFound = { status: 404, body: { error: { message: `unknown ${path}` } } };
    if (method !== 'POST') return notFound;
    if (resource === 'payment_intents' && server.paymentIntents.has(id)) {
      if (action === 'succeed')
        return send('payment_intent.succeeded', server.succeedPaymentIntent(id));
      if (action === 'process')
        return send('payment_intent.processing', server.processPaymentIntent(id));
      if (action === 'fail')
        return send('payment_intent.payment_failed', server.failPaymentIntent(id));
      if (action === 'cancel')
        return send('payment_intent.canceled', server.cancelPaymentIntent(id));
      if (action === 'refunded') {
        const pi = server.paymentIntents.get(id)!;
        const charge = isWallet(pi.payment_method_types)
          ? chargeOf(pi)
          : chargeObject({
              paymentIntent: id,
              amount: pi.amount,
              amountRefunded: pi.amount_refunded ?? 0,
            });
        return send('charge.refunded', charge);
      }
      if (action === 'dispute' && server.paymentIntents.get(id)!.status === 'succeeded')
        return send('charge.dispute.created', server.disputePaymentIntent(id));
    }
    if (
      resource === 'refunds' &&
      server.refunds.has(id) &&
      (action === 'succeed' || action === 'fail')
    )
      return send(
        'charge.refund.updated',
        server.settleRefund(id, action === 'succeed' ? 'succeeded' : 'failed'),
      );
    if (
      resource === 'disputes' &&
      server.disputes.has(id) &&
      (action === 'won' || action === 'lost')
    )
      return send('charge.dispute.closed', server.closeDispute(id, action));
    const sub = resource === 'subscriptions' ? server.subscriptions.get(id) : undefined;
    if (sub && action === 'activate') {
      sub.status = 'active';
      const invoice = server.invoices.get(sub.customer)?.find((i) => i.id === sub.latest_invoice);
      if (invoice) Object.assign(invoice, { status: 'paid', amount_paid: invoice.amount_due });
      return send('customer.subscription.updated', sub);
    }
    if (sub && action === 'cancel') {
      sub.status = 'canceled';
      return send('customer.subscription.deleted', sub);
    }
    return notFound;
  };

  server.onAlipay = async (pi) => {
    if (pi.status === 'succeeded') await send('payment_intent.succeeded', pi);
    else await send('payment_intent.payment_failed', pi);
  };

  await server.start(Number(process.env.MOCK_STRIPE_PORT ?? 12111));
  console.log(
    `Stripe test server: STRIPE_API_BASE=${server.url} STRIPE_SECRET_KEY=${server.secretKey}`,
  );
  console.log(`Webhooks are signed with ${secret} and posted to ${webhookUrl}`);
}

void main();
