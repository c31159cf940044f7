import type { ErrorSpec } from '../common/openapi/api-errors';

const PAYMENT_DESCRIPTIONS: Record<number, string> = {
  400: 'Invalid input (`VALIDATION_FAILED`) or refused by the processor (`PAYMENT_REQUEST_INVALID`)',
  402: 'Card declined (`code`: PAYMENT_FAILED, with `declineCode` when known)',
  409: 'Idempotency-Key reused with other parameters (`code`: CONFLICT)',
  502: 'The payment processor failed or is unreachable (`code`: PAYMENT_PROVIDER_ERROR)',
  503: 'Stripe is not configured (`code`: PAYMENTS_NOT_CONFIGURED), or the database is down',
};

/** Error answers of payment routes with their payment meaning, for `@Endpoint({ errors })`. */
export function paymentErrors(...statuses: number[]): ErrorSpec[] {
  return statuses.map((status) =>
    PAYMENT_DESCRIPTIONS[status] ? { status, description: PAYMENT_DESCRIPTIONS[status] } : status,
  );
}
