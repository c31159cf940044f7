import { Check, Column, Entity, ManyToOne, PrimaryColumn, UpdateDateColumn } from 'typeorm';
import { User } from '../users/user.entity';

/**
 * Credits a user owes: the part of replies' reported usage that neither their hold nor the
 * balance covered (each flagged on its CONSUMPTION entry's `shortfall`). While not 0, admission
 * refuses until the balance covers the new hold plus this, then collects it with a CONSUMPTION
 * entry (CreditHoldsService). Not part of the ledger invariant: nothing here moves credits.
 */
@Entity('credit_shortfalls')
@Check('CHK_credit_shortfalls_credits', '"credits" >= 0')
export class CreditShortfall {
  @PrimaryColumn({ type: 'uuid', primaryKeyConstraintName: 'PK_credit_shortfalls' })
  userId: string;

  @ManyToOne(() => User, { onDelete: 'CASCADE' })
  user?: User;

  /** Credits owed (integer ≥ 0). */
  @Column({ type: 'integer' }) credits: number;

  @UpdateDateColumn({ type: 'timestamptz', precision: 3 }) updatedAt: Date;
}
