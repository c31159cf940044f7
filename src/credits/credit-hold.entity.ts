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

/**
 * Credits reserved for one AI request until it settles. While open, they are neither in
 * `users.credits` nor spent: `credits + Σ open holds = Σ ledger`.
 */
@Entity('credit_holds')
@Check('CHK_credit_holds_amount_positive', '"amount" > 0')
export class CreditHold {
  @PrimaryGeneratedColumn('uuid') id: string;

  @Index('IDX_credit_holds_user')
  @Column({ type: 'uuid' })
  userId: string;

  @ManyToOne(() => User, { onDelete: 'CASCADE' })
  user?: User;

  /** Credits reserved (integer > 0). */
  @Column({ type: 'integer' }) amount: number;

  /** The generation this hold belongs to; one hold per request. */
  @Index('UQ_credit_holds_request', { unique: true })
  @Column({ type: 'varchar', length: 64 })
  requestId: string;

  /** The API key the request came through, counted against its daily limit. */
  @Column({ type: 'uuid', nullable: true }) keyId: string | null;
  /** The team whose pool pays (its team and member budgets count it); null without one. */
  @Column({ type: 'uuid', nullable: true }) teamId: string | null;

  @CreateDateColumn({ type: 'timestamptz', precision: 3 }) createdAt: Date;

  /** After this the sweep returns the credits (a crashed process never settled). */
  @Index('IDX_credit_holds_expires')
  @Column({ type: 'timestamptz', precision: 3 })
  expiresAt: Date;
}
