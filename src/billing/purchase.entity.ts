import {
  Column,
  CreateDateColumn,
  Entity,
  ManyToOne,
  PrimaryColumn,
  UpdateDateColumn,
} from 'typeorm';
import { User } from '../users/user.entity';

export const PAYMENT_METHODS = ['card', 'alipay', 'wechat_pay'] as const;
export type PaymentMethod = (typeof PAYMENT_METHODS)[number];
/**
 * A purchase's method: one of PAYMENT_METHODS, or `checkout` for a Checkout Session whose
 * customer has not paid yet (the method is chosen on Stripe's page and recorded on payment).
 */
export const PURCHASE_METHODS = [...PAYMENT_METHODS, 'checkout'] as const;
export type PurchaseMethod = (typeof PURCHASE_METHODS)[number];
export const PURCHASE_CURRENCIES = ['usd', 'cny'] as const;
export type PurchaseCurrency = (typeof PURCHASE_CURRENCIES)[number];
export const PURCHASE_STATUSES = [
  'pending',
  'processing',
  'succeeded',
  'failed',
  'canceled',
  'refunded',
  'disputed',
] as const;
export type PurchaseStatus = (typeof PURCHASE_STATUSES)[number];

/** Methods whose refunds complete later (`charge.refund.updated`), not with the refund call. */
export const ASYNC_REFUND_METHODS: readonly PurchaseMethod[] = ['alipay', 'wechat_pay'];

/**
 * A credit purchase, created with its payment intent and then changed only by the
 * processor's webhooks. `amount` and `refundedAmount` in minor units of `currency` (fen, cents).
 * `appliedRefunds`: ids of asynchronous refunds already counted in `refundedAmount`.
 */
@Entity('purchases')
export class Purchase {
  @PrimaryColumn('uuid') id: string;
  @Column({ type: 'uuid' }) userId: string;

  @ManyToOne(() => User, { onDelete: 'CASCADE' })
  user?: User;

  /** The payment intent; null for a Checkout Session not paid yet. */
  @Column({ type: 'varchar', length: 255, nullable: true }) paymentIntentId: string | null;
  /** The Checkout Session (`cs_…`) of a purchase made through Checkout; else null. */
  @Column({ type: 'varchar', length: 255, nullable: true }) checkoutSessionId: string | null;
  @Column({ type: 'varchar', length: 20 }) method: PurchaseMethod;
  @Column({ type: 'varchar', length: 3 }) currency: PurchaseCurrency;
  @Column({ type: 'integer' }) amount: number;
  @Column({ type: 'integer' }) credits: number;
  @Column({ type: 'varchar', length: 20, default: 'pending' }) status: PurchaseStatus;
  @Column({ type: 'integer', default: 0 }) refundedAmount: number;
  @Column({ type: 'jsonb', default: () => `'[]'` }) appliedRefunds: string[];
  /** A purchase for this team's pool (granted into it); null: for the buyer's own balance. */
  @Column({ type: 'uuid', nullable: true }) teamId: string | null;
  @CreateDateColumn({ type: 'timestamptz', precision: 3 }) createdAt: Date;
  @UpdateDateColumn({ type: 'timestamptz', precision: 3 }) updatedAt: Date;
}
