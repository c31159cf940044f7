import { Column, Entity, Index, PrimaryGeneratedColumn, Unique } from 'typeorm';

export const FINDING_KINDS = ['missing_grant', 'unpaid_grant'] as const;
/** `missing_grant`: paid at the processor, nothing granted. `unpaid_grant`: granted, not paid. */
export type FindingKind = (typeof FINDING_KINDS)[number];

/**
 * A mismatch between the processor's payments and the purchases granted, one row per payment
 * (`reference`: the payment intent id, or the Checkout Session id of a session without one) and
 * kind. A later run that finds it again only moves `lastSeenAt`.
 */
@Entity('reconciliation_findings')
@Unique('UQ_reconciliation_findings_kind_reference', ['kind', 'reference'])
@Index('IDX_reconciliation_findings_seen', ['lastSeenAt', 'id'])
export class ReconciliationFinding {
  @PrimaryGeneratedColumn('uuid') id: string;
  @Column({ type: 'varchar', length: 20 }) kind: FindingKind;
  @Column({ type: 'varchar', length: 255 }) reference: string;
  /** The stored event that grants a `missing_grant` (replay it); null for `unpaid_grant`. */
  @Column({ type: 'varchar', length: 255, nullable: true }) eventId: string | null;
  /** The buyer: metadata `userId` of the payment, or the purchase's user. */
  @Column({ type: 'uuid', nullable: true }) userId: string | null;
  /** Minor units of `currency`. */
  @Column({ type: 'integer', nullable: true }) amount: number | null;
  @Column({ type: 'varchar', length: 3, nullable: true }) currency: string | null;
  /** The payment's status at the processor when last seen (`missing` when it does not know it). */
  @Column({ type: 'varchar', length: 40 }) processorStatus: string;
  @Column({ type: 'timestamptz', precision: 3, default: () => 'now()' }) firstSeenAt: Date;
  @Column({ type: 'timestamptz', precision: 3, default: () => 'now()' }) lastSeenAt: Date;
}
