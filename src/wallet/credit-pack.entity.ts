import { Column, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';
import type { PurchaseCurrency } from '../billing/purchase.entity';

/**
 * An admin's edit of a credit pack: it replaces the CREDIT_PACKS pack of the same id, or adds
 * one; `active = false` takes the pack off sale. `amount` in minor units of `currency`.
 */
@Entity('credit_packs')
export class CreditPackRow {
  @PrimaryColumn({ type: 'varchar', length: 64 }) id: string;
  @Column({ type: 'integer' }) credits: number;
  @Column({ type: 'integer' }) amount: number;
  @Column({ type: 'varchar', length: 3 }) currency: PurchaseCurrency;
  @Column({ type: 'boolean', default: true }) active: boolean;
  /** The admin who made the edit (null once that user is gone). */
  @Column({ type: 'uuid', nullable: true }) updatedBy: string | null;
  @UpdateDateColumn({ type: 'timestamptz', precision: 3 }) updatedAt: Date;
}
