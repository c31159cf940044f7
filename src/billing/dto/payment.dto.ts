import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import {
  IsIn,
  IsInt,
  IsOptional,
  IsPositive,
  IsString,
  Matches,
  Max,
  MaxLength,
  MinLength,
  ValidateBy,
  IsUUID,
} from 'class-validator';
import Decimal from 'decimal.js';
import type Stripe from 'stripe';
import {
  PAYMENT_METHODS,
  type PaymentMethod,
  PURCHASE_CURRENCIES,
  type PurchaseCurrency,
} from '../purchase.entity';

/** Largest amount Stripe accepts in one charge: 999,999.99 in major units. */
const PROCESSOR_MAX_MAJOR = 999_999.99;

/**
 * A finite number with at most two decimals. (class-validator's `IsNumber({maxDecimalPlaces})`
 * throws a TypeError, a 500, on numbers JSON writes with an exponent such as 1e-7.)
 */
function IsMajorUnits() {
  return ValidateBy({
    name: 'isMajorUnits',
    validator: {
      validate: (v: unknown) =>
        typeof v === 'number' && Number.isFinite(v) && new Decimal(v).decimalPlaces() <= 2,
      defaultMessage: () => '$property must be a number with at most two decimals',
    },
  });
}

/** `POST /api/payment/create-subscription`: one of the configured price ids. */
export class CreateSubscriptionDto {
  @ApiProperty({ example: 'price_basic_monthly', maxLength: 255 })
  @IsString()
  @MinLength(1)
  @MaxLength(255)
  priceId: string;
}

/** `POST /api/payment/create-payment-intent`: `amount` in major units (e.g. 19.99). */
export class CreatePaymentIntentDto {
  @ApiProperty({ example: 19.99, description: 'major units, at most two decimals' })
  @IsMajorUnits()
  @IsPositive()
  @Max(PROCESSOR_MAX_MAJOR)
  amount: number;

  @ApiPropertyOptional({ example: 'usd', default: 'usd' })
  @IsOptional()
  @Transform(({ value }) => (typeof value === 'string' ? value.trim().toLowerCase() : value))
  @IsString()
  @Matches(/^[a-z]{3}$/, { message: 'currency must be a three-letter ISO 4217 code' })
  currency?: string;
}

/**
 * `POST /api/credits/purchase`: `amount` in `currency` (major units, ≤ PURCHASE_MAX_USD or
 * PURCHASE_MAX_CNY) for `credits` (a positive integer, ≤ amount × CREDITS_PER_USD or
 * CREDITS_PER_CNY; the bounds are checked by the service), paid with `paymentMethod`
 * (Alipay and WeChat Pay in `cny` only).
 */
export class PurchaseCreditsDto {
  @ApiProperty({ example: 10, description: 'major units of `currency`, at most two decimals' })
  @IsMajorUnits()
  @IsPositive()
  amount: number;

  @ApiProperty({ example: 1000, description: 'credits to receive, ≤ amount × credits per unit' })
  @IsInt()
  @IsPositive()
  credits: number;

  @ApiPropertyOptional({ enum: PAYMENT_METHODS, default: 'card' })
  @IsOptional()
  @IsIn(PAYMENT_METHODS)
  paymentMethod?: PaymentMethod;

  @ApiPropertyOptional({
    enum: PURCHASE_CURRENCIES,
    description: 'default `usd` for card, `cny` for Alipay and WeChat Pay (which take only cny)',
  })
  @IsOptional()
  @IsIn(PURCHASE_CURRENCIES)
  currency?: PurchaseCurrency;

  @ApiPropertyOptional({
    format: 'uuid',
    description:
      "buy for this team's credit pool (its OWNER or ADMIN only: 403 for a MEMBER, 404 for " +
      'anyone else); the webhook grants the pool, once',
  })
  @IsOptional()
  @IsUUID()
  teamId?: string;
}

/** `POST /api/payment/refund`: the whole payment without `amount`, else `amount` major units. */
export class RefundDto {
  @ApiProperty({ example: 'pi_3MtwBwLkdIwHu7ix28a3tqPa' })
  @IsString()
  @Matches(/^pi_[A-Za-z0-9_]{1,250}$/, { message: 'paymentIntentId must be a payment intent id' })
  paymentIntentId: string;

  @ApiPropertyOptional({ example: 5, description: 'major units; omitted = full refund' })
  @IsOptional()
  @IsMajorUnits()
  @IsPositive()
  @Max(PROCESSOR_MAX_MAJOR)
  amount?: number;
}

/** `{clientSecret}` of a payment intent, for the frontend's confirmation step. */
export class ClientSecretDto {
  @ApiProperty() clientSecret: string;
}

/** Answer of create-subscription; `clientSecret` is null when the first invoice needs no payment. */
export class SubscriptionCreatedDto {
  @ApiProperty() subscriptionId: string;
  @ApiProperty({ type: String, nullable: true }) clientSecret: string | null;
}

/** A refund as returned by `POST /api/payment/refund`; `amount` in minor units. */
export class RefundViewDto {
  @ApiProperty() id: string;
  @ApiProperty({ example: 'refund' }) object: 'refund';
  @ApiProperty({ description: 'minor units' }) amount: number;
  @ApiProperty() currency: string;
  @ApiProperty({ type: String, nullable: true }) status: string | null;
  @ApiProperty({ type: String, nullable: true }) payment_intent: string | null;
  @ApiProperty({ description: 'Unix seconds' }) created: number;
}

export class RefundResponseDto {
  @ApiProperty({ type: RefundViewDto }) refund: RefundViewDto;
}

/** One invoice of `GET /api/billing/history` (processor field names; amounts in minor units). */
export class InvoiceViewDto {
  @ApiProperty() id: string;
  @ApiProperty({ type: String, nullable: true }) number: string | null;
  @ApiProperty({ description: 'minor units' }) amount_paid: number;
  @ApiProperty() currency: string;
  @ApiProperty({ description: 'Unix seconds' }) created: number;
  @ApiProperty({ type: String, nullable: true }) status: string | null;
  @ApiProperty({ type: String, nullable: true }) hosted_invoice_url: string | null;
}

export class InvoicesDto {
  @ApiProperty({ type: [InvoiceViewDto] }) invoices: InvoiceViewDto[];
}

/** `GET /api/payment/config`: what the frontend needs; never a secret. */
export class PlanPriceDto {
  @ApiProperty({ enum: ['BASIC', 'PRO'] }) plan: 'BASIC' | 'PRO';
  @ApiProperty({ example: 'price_basic_monthly' }) priceId: string;
}

export class PaymentConfigDto {
  @ApiProperty({ type: String, nullable: true }) publishableKey: string | null;
  @ApiProperty({ type: [PlanPriceDto] }) plans: PlanPriceDto[];
}

const idOf = (v: string | { id: string } | null | undefined): string | null =>
  v == null ? null : typeof v === 'string' ? v : v.id;

/** Maps a processor refund to its response shape (no metadata, no charge details). */
export function mapRefund(r: Stripe.Refund): RefundViewDto {
  return {
    id: r.id,
    object: 'refund',
    amount: r.amount,
    currency: r.currency,
    status: r.status,
    payment_intent: idOf(r.payment_intent),
    created: r.created,
  };
}

/** Maps a processor invoice to its list item. */
export function mapInvoice(i: Stripe.Invoice): InvoiceViewDto {
  return {
    id: i.id,
    number: i.number,
    amount_paid: i.amount_paid,
    currency: i.currency,
    created: i.created,
    status: i.status,
    hosted_invoice_url: i.hosted_invoice_url ?? null,
  };
}
