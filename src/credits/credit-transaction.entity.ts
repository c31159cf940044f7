import {
  Check,
  Column,
  CreateDateColumn,
  Entity,
  Index,
  ManyToOne,
  PrimaryGeneratedColumn,
} from 'typeorm';
import { User } from '../users/user.entity';

export const CREDIT_TRANSACTION_TYPES = [
  'CONSUMPTION',
  'PURCHASE',
  'BONUS',
  'ADJUSTMENT',
  'REFUND',
  'TRANSFER',
  'REDEMPTION',
  'PLAN_GRANT',
] as const;
export type CreditTransactionType = (typeof CREDIT_TRANSACTION_TYPES)[number];

/**
 * One ledger entry (spec "CreditTransaction"): `amount` in credits, negative for consumption.
 * An entry belongs to one account: a user's own balance (`userId`) or a team's pool (`teamId`).
 * For every user, `users.credits` equals the sum of their entries at every commit, and for every
 * team `teams.credits` the sum of its entries (open holds aside). TRANSFER: credits moved from a
 * member's balance to the pool, one entry on each side, in one transaction. REDEMPTION: credits a
 * redemption code granted, keyed by code and user (never a payment: no referral reward follows).
 * member's balance to the pool, one entry on each side, in one transaction. PLAN_GRANT: the
 * credits a plan includes for one paid period, once per invoice (reference `plan-grant:<invoice>`).
 */
@Entity('credit_transactions')
@Check('CHK_credit_transactions_account', '("userId" IS NULL) <> ("teamId" IS NULL)')
@Index('IDX_credit_transactions_user_created', ['userId', 'createdAt'])
export class CreditTransaction {
  @PrimaryGeneratedColumn('uuid') id: string;
  /** The user whose own balance the entry belongs to; null for a team pool's entry. */
  @Column({ type: 'uuid', nullable: true }) userId: string | null;
  /** The team whose pool the entry belongs to; null for a user's own entry. */
  @Column({ type: 'uuid', nullable: true }) teamId: string | null;
  /** A pool's entry: the member who spent, bought or transferred (null once that user is gone). */
  @Column({ type: 'uuid', nullable: true }) memberId: string | null;

  @ManyToOne(() => User, { onDelete: 'CASCADE' })
  user?: User;

  @Column({ type: 'integer' }) amount: number;
  @Column({ type: 'varchar', length: 20 }) type: CreditTransactionType;
  @Column({ type: 'varchar', length: 500 }) description: string;

  /** Idempotency key (e.g. `signup:<userId>`, a payment intent id); unique when set. */
  @Index('UQ_credit_transactions_reference', { unique: true, where: '"reference" IS NOT NULL' })
  @Column({ type: 'varchar', length: 255, nullable: true })
  reference: string | null;

  /** CONSUMPTION of an AI request: the model and the tokens charged; else null. */
  @Column({ type: 'varchar', length: 100, nullable: true }) modelId: string | null;
  @Column({ type: 'integer', nullable: true }) promptTokens: number | null;
  @Column({ type: 'integer', nullable: true }) completionTokens: number | null;
  /** Of promptTokens, read from the provider's prompt cache; null when not reported. */
  @Column({ type: 'integer', nullable: true }) cachedTokens: number | null;
  /** Of promptTokens, written to the provider's prompt cache; null when not reported. */
  @Column({ type: 'integer', nullable: true }) cacheWriteTokens: number | null;
  /** Of completionTokens, the reasoning tokens; null when not reported. */
  @Column({ type: 'integer', nullable: true }) reasoningTokens: number | null;
  /** Credits the cache reads saved (0 with CREDIT_PRICING=spec); null before it was recorded. */
  @Column({ type: 'integer', nullable: true }) cacheSavings: number | null;
  /**
   * CONSUMPTION of a reply whose reported usage neither the hold nor the balance covered: the
   * credits not charged (then owed, see CreditShortfall); null when everything was charged.
   */
  @Column({ type: 'integer', nullable: true }) shortfall: number | null;
  /** CONSUMPTION through an API key: the key's id. */
  @Column({ type: 'uuid', nullable: true }) keyId: string | null;

  @CreateDateColumn({ type: 'timestamptz', precision: 3 }) createdAt: Date;
}
