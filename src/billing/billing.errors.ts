import { HttpStatus } from '@nestjs/common';
import type { ErrorTable } from '../common/errors/error-table';

/** The codes the billing module (the payment processor) raises, as `code` in error bodies. */
export enum BillingErrorCode {
  /** No payment processor is configured (STRIPE_SECRET_KEY and its prices). */
  PAYMENTS_NOT_CONFIGURED = 'PAYMENTS_NOT_CONFIGURED',
  /** The processor declined the payment (`declineCode`). */
  PAYMENT_FAILED = 'PAYMENT_FAILED',
  /** The processor failed or could not be reached. */
  PAYMENT_PROVIDER_ERROR = 'PAYMENT_PROVIDER_ERROR',
  /** The processor refused the request's parameters (`param`). */
  PAYMENT_REQUEST_INVALID = 'PAYMENT_REQUEST_INVALID',
  /** A webhook whose signature does not verify with the endpoint's secret. */
  WEBHOOK_SIGNATURE_INVALID = 'WEBHOOK_SIGNATURE_INVALID',
}

/** Their HTTP statuses (src/app-errors.ts assembles every module's table). */
export const BILLING_ERRORS: ErrorTable<BillingErrorCode> = {
  PAYMENTS_NOT_CONFIGURED: { status: HttpStatus.SERVICE_UNAVAILABLE },
  PAYMENT_FAILED: { status: HttpStatus.PAYMENT_REQUIRED },
  PAYMENT_PROVIDER_ERROR: { status: HttpStatus.BAD_GATEWAY },
  // The processor refused the request's parameters (e.g. an unknown payment intent).
  PAYMENT_REQUEST_INVALID: { status: HttpStatus.BAD_REQUEST },
  WEBHOOK_SIGNATURE_INVALID: { status: HttpStatus.BAD_REQUEST },
};
