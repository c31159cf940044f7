import { applyDecorators } from '@nestjs/common';
import { ApiResponse } from '@nestjs/swagger';
import { ApiErrors } from '../common/openapi/api-errors';

const PAYMENT_DESCRIPTIONS: Record<number, string> = {
  400: 'Invalid input (`VALIDATION_FAILED`) or refused by the processor (`PAYMENT_REQUEST_INVALID`)',
  402: 'Card declined (`code`: PAYMENT_FAILED, with `declineCode` when known)',
  409: 'Idempotency-Key reused with other parameters (`code`: CONFLICT)',
  502: 'The payment processor failed or is unreachable (`code`: PAYMENT_PROVIDER_ERROR)',
  503: 'Stripe is not configured (`code`: PAYMENTS_NOT_CONFIGURED)',
};

/** Documents error answers of payment routes; statuses without a payment meaning use ApiErrors. */
export function ApiPaymentErrors(...statuses: number[]) {
  const schema = {
    type: 'object',
    properties: { error: { type: 'string' }, code: { type: 'string' } },
    required: ['error', 'code'],
  };
  return applyDecorators(
    ApiErrors(...statuses.filter((s) => !PAYMENT_DESCRIPTIONS[s])),
    ...statuses
      .filter((s) => PAYMENT_DESCRIPTIONS[s])
      .map((status) => ApiResponse({ status, description: PAYMENT_DESCRIPTIONS[status], schema })),
  );
}
