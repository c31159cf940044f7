import Stripe from 'stripe';
import { AppError, CommonErrorCode } from '../common/errors/app-error';
import { BillingErrorCode } from './billing.errors';

/**
 * Keys, account ids, client secrets and emails that a processor message may quote. They are
 * replaced before a message reaches a client.
 */
const SENSITIVE = [
  /\b(sk|rk|pk|whsec|acct)_[A-Za-z0-9_*]+/g,
  /\b(pi|seti)_[A-Za-z0-9]+_secret_[A-Za-z0-9]+/g,
  /[\w.+-]+@[\w-]+(\.[\w-]+)+/g,
];

/** `message` with keys, account ids, client secrets and emails replaced by `[redacted]`. */
export function redact(message: string): string {
  return SENSITIVE.reduce((text, pattern) => text.replace(pattern, '[redacted]'), message);
}

/**
 * Maps an SDK error to the AppError the client sees:
 * - card errors → 402 PAYMENT_FAILED with the processor's customer-facing message (redacted)
 *   and `declineCode` when given;
 * - invalid requests → 400 PAYMENT_REQUEST_INVALID with the redacted message and `param`;
 * - an Idempotency-Key reused with other parameters → 409 CONFLICT;
 * - anything else (authentication, rate limit, API and connection errors) → 502
 *   PAYMENT_PROVIDER_ERROR with a generic message: these describe our account, not the payment.
 * An AppError passes through unchanged.
 */
export function toAppError(err: unknown): AppError {
  if (err instanceof AppError) return err;
  if (err instanceof Stripe.errors.StripeCardError) {
    return new AppError(
      BillingErrorCode.PAYMENT_FAILED,
      redact(err.message || 'The payment was declined'),
      err.decline_code ? { declineCode: err.decline_code } : undefined,
    );
  }
  if (err instanceof Stripe.errors.StripeInvalidRequestError) {
    return new AppError(
      BillingErrorCode.PAYMENT_REQUEST_INVALID,
      redact(err.message || 'The payment processor refused the request'),
      err.param ? { param: err.param } : undefined,
    );
  }
  if (err instanceof Stripe.errors.StripeIdempotencyError) {
    return new AppError(
      CommonErrorCode.CONFLICT,
      'This Idempotency-Key was already used with different parameters',
    );
  }
  return new AppError(
    BillingErrorCode.PAYMENT_PROVIDER_ERROR,
    'The payment processor is unavailable',
  );
}
