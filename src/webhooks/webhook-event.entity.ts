import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

/**
 * A processor event whose effect has been applied. The row is inserted in the same transaction
 * as the effect, so it exists exactly when the effect does: a duplicate delivery finds it and
 * does nothing, and a failed attempt leaves no row, so the processor's retry runs again.
 */
@Entity('webhook_events')
export class WebhookEvent {
  /** The processor's event id, `evt_…`. */
  @PrimaryColumn({ type: 'varchar', length: 255 }) id: string;
  @Column({ type: 'varchar', length: 100 }) type: string;
  /** The event's `created` (processor time). */
  @Column({ type: 'timestamptz' }) eventCreatedAt: Date;
  @CreateDateColumn({ type: 'timestamptz', precision: 3 }) processedAt: Date;
}
