import { Inject, Injectable, Logger } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { billingConfig } from './billing.config';
import Stripe from 'stripe';
import { AppError, CommonErrorCode } from '../common/errors/app-error';
import { BillingErrorCode } from './billing.errors';
import { toAppError } from './stripe-errors';

/** The processor API version the service pins (spec Payments rule 4). */
export const STRIPE_API_VERSION = '2024-06-20' as const;

/** `host`, `port` and `protocol` options of the SDK for a base such as `http://127.0.0.1:12111`. */
export function stripeEndpoint(
  apiBase?: string,
): Pick<Stripe.StripeConfig, 'host' | 'port' | 'protocol'> {
  if (!apiBase) return {};
  const url = new URL(apiBase);
  const protocol = url.protocol === 'http:' ? 'http' : 'https';
  return {
    host: url.hostname,
    port: url.port ? Number(url.port) : protocol === 'http' ? 80 : 443,
    protocol,
  };
}

/**
 * The one adapter around the `stripe` SDK: builds the configured client (API version
 * 2024-06-20, optional local base from STRIPE_API_BASE), runs calls with errors mapped to
 * AppErrors, and verifies webhook signatures. Secrets are held here and never logged.
 */
@Injectable()
export class StripeClient {
  private readonly logger = new Logger('Stripe');
  private readonly stripe?: Stripe;
  private readonly webhookSecret?: string;

  constructor(@Inject(billingConfig.KEY) billing: ConfigType<typeof billingConfig>) {
    const settings = billing.stripe;
    this.webhookSecret = settings.webhookSecret;
    if (settings.secretKey) {
      this.stripe = new Stripe(settings.secretKey, {
        apiVersion: STRIPE_API_VERSION,
        // Each create call carries its own Idempotency-Key; callers retry with the same one.
        maxNetworkRetries: 0,
        timeout: 20_000,
        telemetry: false,
        ...stripeEndpoint(settings.apiBase),
      });
    }
  }

  /** True when STRIPE_SECRET_KEY is set. */
  get configured(): boolean {
    return this.stripe !== undefined;
  }

  /**
   * Runs `op` against the SDK. `what` names the call in logs (e.g. `paymentIntents.create`).
   * Throws PAYMENTS_NOT_CONFIGURED (503) without a secret key; processor errors become
   * PAYMENT_FAILED (402, card errors), PAYMENT_REQUEST_INVALID (400), CONFLICT (409, an
   * Idempotency-Key reused with other parameters) or PAYMENT_PROVIDER_ERROR (502).
   */
  async call<T>(what: string, op: (stripe: Stripe) => Promise<T>): Promise<T> {
    if (!this.stripe)
      throw new AppError(BillingErrorCode.PAYMENTS_NOT_CONFIGURED, 'Payments are not configured');
    try {
      return await op(this.stripe);
    } catch (err) {
      const mapped = toAppError(err);
      // The processor's own message and request id go to the log, never to the client as is.
      const raw = err as { type?: string; message?: string; requestId?: string };
      this.logger.warn(
        { call: what, type: raw.type, requestId: raw.requestId, code: mapped.code },
        `${what} failed: ${raw.message ?? 'unknown error'}`,
      );
      throw mapped;
    }
  }

  /**
   * Verifies `signature` (the `Stripe-Signature` header) over the raw body with
   * STRIPE_WEBHOOK_SECRET and the SDK's default tolerance of 300 s, and returns the event.
   * Throws PAYMENTS_NOT_CONFIGURED (503) without a webhook secret, WEBHOOK_SIGNATURE_INVALID
   * (400) for a missing or wrong signature, an altered body or an old timestamp, and
   * VALIDATION_FAILED (400) for a signed body that is not an event (`{id, type, data: {object}}`).
   */
  constructEvent(rawBody: Buffer | undefined, signature: string | undefined): Stripe.Event {
    if (!this.webhookSecret)
      throw new AppError(
        BillingErrorCode.PAYMENTS_NOT_CONFIGURED,
        'Payment webhooks are not configured',
      );
    if (!rawBody || !signature)
      throw new AppError(
        BillingErrorCode.WEBHOOK_SIGNATURE_INVALID,
        'Missing webhook signature or body',
      );
    let event: Stripe.Event;
    try {
      event = Stripe.webhooks.constructEvent(rawBody, signature, this.webhookSecret);
    } catch {
      throw new AppError(
        BillingErrorCode.WEBHOOK_SIGNATURE_INVALID,
        'Webhook signature verification failed',
      );
    }
    // The SDK returns whatever JSON was signed (`null`, a number…); handlers expect an event.
    const e = event as Partial<Stripe.Event> | null;
    // Its id and time are stored (the event log, the dead-letter table): bounded and typed.
    if (
      typeof e?.id !== 'string' ||
      e.id.length === 0 ||
      e.id.length > 255 ||
      typeof e.type !== 'string' ||
      e.type.length > 100 ||
      !Number.isSafeInteger(e.created) ||
      typeof e.data?.object !== 'object' ||
      e.data.object === null
    )
      throw new AppError(CommonErrorCode.VALIDATION_FAILED, 'Webhook body is not an event');
    return event;
  }
}
