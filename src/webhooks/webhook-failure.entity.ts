import { Column, Entity, PrimaryColumn } from 'typeorm';

export const WEBHOOK_FAILURE_REASONS = ['handler', 'reconciliation'] as const;
export type WebhookFailureReason = (typeof WEBHOOK_FAILURE_REASONS)[number];

/**
 * The dead letter of a signed processor event whose handler threw: the raw payload
 * as received, so it can be replayed after the cause is fixed. The row leaves when a retry or a
 * replay of the event succeeds.
 */
@Entity('webhook_failures')
export class WebhookFailure {
  @PrimaryColumn({ type: 'varchar', length: 255 }) eventId: string;
  @Column({ type: 'varchar', length: 100 }) type: string;
  /**
   * `handler`: its handler threw. `reconciliation`: a paid payment with no grant, stored by the
   * reconciliation as the event that grants it.
   */
  @Column({ type: 'varchar', length: 20, default: 'handler' }) reason: WebhookFailureReason;
  /** The body exactly as signed (its signature was verified when it arrived). */
  @Column({ type: 'text' }) payload: string;
  /** The last error's name and message (never a stack). */
  @Column({ type: 'varchar', length: 1000 }) error: string;
  @Column({ type: 'int' }) attempts: number;
  @Column({ type: 'timestamptz', precision: 3 }) firstAttemptAt: Date;
  @Column({ type: 'timestamptz', precision: 3 }) lastAttemptAt: Date;
}
