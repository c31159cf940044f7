import { ApiProperty, type ApiPropertyOptions } from '@nestjs/swagger';
import {
  PURCHASE_METHODS,
  PURCHASE_CURRENCIES,
  PURCHASE_STATUSES,
  type Purchase,
  type PurchaseStatus,
} from '../purchase.entity';

/**
 * What the client does next: `alipay_handle_redirect` sends the browser to `url`;
 * `wechat_pay_display_qr_code` shows `image_data_url` (a `data:image/png;base64,…` QR code) or
 * renders `data` as a QR code, then polls `GET /api/credits/purchases/{id}`.
 */
export interface PurchaseNextActionDto {
  type: 'alipay_handle_redirect' | 'wechat_pay_display_qr_code';
  url?: string;
  image_data_url?: string;
  data?: string;
}

/** The schema of PurchaseNextActionDto, inline so that it can be nullable (OpenAPI 3.0). */
const NEXT_ACTION_SCHEMA: ApiPropertyOptions = {
  type: 'object',
  nullable: true,
  required: ['type'],
  additionalProperties: false,
  properties: {
    type: { type: 'string', enum: ['alipay_handle_redirect', 'wechat_pay_display_qr_code'] },
    url: { type: 'string', description: 'Alipay: the page to redirect the customer to' },
    image_data_url: { type: 'string', description: 'WeChat Pay: the QR code as a data URL' },
    data: { type: 'string', description: 'WeChat Pay: the text the QR code encodes' },
  },
  description: 'null for card (confirmed with Stripe.js)',
};

/** `POST /api/credits/purchase`: the intent's client secret and the purchase record. */
export class PurchaseCreatedDto {
  @ApiProperty() clientSecret: string;
  @ApiProperty({ format: 'uuid' }) purchaseId: string;
  @ApiProperty({ enum: PURCHASE_STATUSES, example: 'pending' }) status: PurchaseStatus;
  @ApiProperty(NEXT_ACTION_SCHEMA)
  nextAction: PurchaseNextActionDto | null;
}

/** One credit purchase; `amount` in minor units of `currency` (cents, fen). */
export class PurchaseViewDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({
    enum: PURCHASE_METHODS,
    description: '`checkout`: a Checkout Session not paid yet (the method is chosen there)',
  })
  method: string;
  @ApiProperty({ enum: PURCHASE_CURRENCIES }) currency: string;
  @ApiProperty({ type: 'integer', description: 'minor units', example: 1999 }) amount: number;
  @ApiProperty({ type: 'integer', example: 280 }) credits: number;
  @ApiProperty({ enum: PURCHASE_STATUSES }) status: PurchaseStatus;
  @ApiProperty({ type: 'integer', description: 'minor units refunded so far' })
  refundedAmount: number;
  @ApiProperty({ format: 'date-time' }) createdAt: string;
}

/** `GET /api/credits/purchases`: newest first, keyset-paginated (envelope C). */
export class PurchasePageDto {
  @ApiProperty({ type: [PurchaseViewDto] }) data: PurchaseViewDto[];
  @ApiProperty({ type: String, nullable: true, description: 'pass as `cursor` for the next page' })
  nextCursor: string | null;
}

/** Maps a purchase to its view; `status` may be the displayed one (see PurchasesService.view). */
export function mapPurchase(p: Purchase, status: PurchaseStatus = p.status): PurchaseViewDto {
  return {
    id: p.id,
    method: p.method,
    currency: p.currency,
    amount: p.amount,
    credits: p.credits,
    status,
    refundedAmount: p.refundedAmount,
    createdAt: p.createdAt.toISOString(),
  };
}
