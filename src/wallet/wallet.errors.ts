import { HttpStatus } from '@nestjs/common';
import type { ErrorTable } from '../common/errors/error-table';

/** The codes the wallet module (credit packs, Checkout, the customer portal) raises. */
export enum WalletErrorCode {
  /** `packId` names no pack on sale (CREDIT_PACKS and the admins' edits). */
  UNKNOWN_PACK = 'UNKNOWN_PACK',
  /** The plan has no configured price (STRIPE_PRICE_BASIC, STRIPE_PRICE_PRO). */
  PLAN_NOT_AVAILABLE = 'PLAN_NOT_AVAILABLE',
  /** A subscription still gives the user a plan: plans change in the customer portal. */
  ALREADY_SUBSCRIBED = 'ALREADY_SUBSCRIBED',
  /** The customer portal needs a payment customer: the user has never paid through Stripe. */
  NO_PAYMENT_CUSTOMER = 'NO_PAYMENT_CUSTOMER',
}

/** Their HTTP statuses (src/app-errors.ts assembles every module's table). */
export const WALLET_ERRORS: ErrorTable<WalletErrorCode> = {
  UNKNOWN_PACK: { status: HttpStatus.BAD_REQUEST },
  PLAN_NOT_AVAILABLE: { status: HttpStatus.BAD_REQUEST },
  ALREADY_SUBSCRIBED: { status: HttpStatus.CONFLICT },
  NO_PAYMENT_CUSTOMER: { status: HttpStatus.CONFLICT },
};
