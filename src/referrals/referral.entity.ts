import { Column, CreateDateColumn, Entity, ManyToOne, PrimaryColumn } from 'typeorm';
import { User } from '../users/user.entity';

export const REFERRAL_STATUSES = ['pending', 'rewarded', 'reversed'] as const;
export type ReferralStatus = (typeof REFERRAL_STATUSES)[number];

/** A user's referral code: 8 characters of REFERRAL_ALPHABET, unique. */
@Entity('referral_codes')
export class ReferralCode {
  @PrimaryColumn('uuid') userId: string;

  @ManyToOne(() => User, { onDelete: 'CASCADE' })
  user?: User;

  @Column({ type: 'varchar', length: 8 }) code: string;
  @CreateDateColumn({ type: 'timestamptz', precision: 3 }) createdAt: Date;
}

/**
 * Who referred a user: one row per referred user (the primary key), written at sign-up and
 * never re-pointed; a CHECK refuses self-referral. `rewardPayment` is the payment (intent id)
 * whose success rewarded the referrer; its refund
 * (partial or full) or dispute reverses the reward.
 */
@Entity('referrals')
export class Referral {
  @PrimaryColumn('uuid') referredId: string;
  @Column({ type: 'uuid' }) referrerId: string;

  @ManyToOne(() => User, { onDelete: 'CASCADE' })
  referred?: User;

  @ManyToOne(() => User, { onDelete: 'CASCADE' })
  referrer?: User;

  @Column({ type: 'varchar', length: 10, default: 'pending' }) status: ReferralStatus;
  @Column({ type: 'varchar', length: 255, nullable: true }) rewardPayment: string | null;
  @Column({ type: 'timestamptz', precision: 3, nullable: true }) rewardedAt: Date | null;
  @Column({ type: 'timestamptz', precision: 3, nullable: true }) reversedAt: Date | null;
  @CreateDateColumn({ type: 'timestamptz', precision: 3 }) createdAt: Date;
}
