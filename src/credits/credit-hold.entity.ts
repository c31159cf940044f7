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
 * `users.credits` (or `teams.credits`, a pool's hold) nor spent: `credits + Σ open holds = Σ ledger`
 * per account.
 */
@Entity('credit_holds')
@Check('CHK_credit_holds_amount_positive', '"amount" > 0')
@Check('CHK_credit_holds_account', '("userId" IS NULL) <> ("teamId" IS NULL)')
export class CreditHold {
  @PrimaryGeneratedColumn('uuid') id: string;

  /** The user whose own balance holds it; null for a team pool's hold (then `teamId`). */
  @Index('IDX_credit_holds_user')
  @Column({ type: 'uuid', nullable: true })
  userId: string | null;

  /** The team whose pool holds it; null for a user's own hold. */
  @Column({ type: 'uuid', nullable: true }) teamId: string | null;

  /** A pool's hold: the member whose call it is (null once that user is deleted). */
  @Column({ type: 'uuid', nullable: true }) memberId: string | null;

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

  @CreateDateColumn({ type: 'timestamptz', precision: 3 }) createdAt: Date;

  /** After this the sweep returns the credits (a crashed process never settled). */
  @Index('IDX_credit_holds_expires')
  @Column({ type: 'timestamptz', precision: 3 })
  expiresAt: Date;
}
