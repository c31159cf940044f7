import { Column, CreateDateColumn, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';

/**
 * A chargeback of one of our payments, written only by the dispute webhooks in their event's
 * transaction. `creditsTaken`: credits clawed back at the dispute (null: not yet; 0: nothing
 * could be taken). `creditsRestored`: credits given back when it was won (null: not yet).
 * `status`: the latest Stripe dispute status seen (`needs_response`, `won`, `lost`, …).
 */
@Entity('payment_disputes')
export class PaymentDispute {
  /** Stripe's dispute id, `dp_…`. */
  @PrimaryColumn({ type: 'varchar', length: 255 }) id: string;
  @Column({ type: 'varchar', length: 255 }) paymentIntentId: string;
  @Column({ type: 'varchar', length: 255, nullable: true }) chargeId: string | null;
  /** The disputed amount, minor units of `currency`; null when the event did not carry one. */
  @Column({ type: 'integer', nullable: true }) amount: number | null;
  @Column({ type: 'varchar', length: 3, nullable: true }) currency: string | null;
  @Column({ type: 'varchar', length: 32 }) status: string;
  @Column({ type: 'integer', nullable: true }) creditsTaken: number | null;
  @Column({ type: 'integer', nullable: true }) creditsRestored: number | null;
  @CreateDateColumn({ type: 'timestamptz', precision: 3 }) createdAt: Date;
  @UpdateDateColumn({ type: 'timestamptz', precision: 3 }) updatedAt: Date;
}
