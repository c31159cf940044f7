import {
  Check,
  Column,
  CreateDateColumn,
  Entity,
  Index,
  PrimaryGeneratedColumn,
  UpdateDateColumn,
} from 'typeorm';
import type { StoredPreferences } from './preferences/preferences.dto';

export const ROLES = ['USER', 'ADMIN'] as const;
export type Role = (typeof ROLES)[number];
export const PLANS = ['FREE', 'BASIC', 'PRO'] as const;
export type Plan = (typeof PLANS)[number];

/** Spec "User". `credits` is written only by CreditsService, always beside a ledger row. */
@Entity('users')
@Check('CHK_users_credits_non_negative', '"credits" >= 0')
@Check('CHK_users_role', `"role" IN ('USER', 'ADMIN')`)
@Check('CHK_users_plan', `"plan" IN ('FREE', 'BASIC', 'PRO')`)
export class User {
  @PrimaryGeneratedColumn('uuid') id: string;

  /** Trimmed and lower-cased before it is stored. */
  @Index('UQ_users_email', { unique: true })
  @Column({ type: 'varchar', length: 320 })
  email: string;

  /**
   * When the owner proved the address (followed a mailed link, or a social provider reported it
   * verified); null until then. The sign-up bonus, ADMIN_EMAILS and referral rewards wait for it.
   */
  @Column({ type: 'timestamptz', precision: 3, nullable: true }) emailVerifiedAt: Date | null;

  @Column({ type: 'varchar', length: 100, nullable: true }) name: string | null;
  @Column({ type: 'varchar', length: 2048, nullable: true }) avatar: string | null;
  @Column({ type: 'varchar', length: 10, default: 'USER' }) role: Role;

  /** bcrypt hash; null for social-only accounts. Never returned. */
  @Column({ type: 'varchar', length: 100, nullable: true }) password: string | null;

  @Column({ type: 'integer', default: 0 }) credits: number;
  @Column({ type: 'varchar', length: 10, default: 'FREE' }) plan: Plan;
  @Column({ type: 'varchar', length: 255, nullable: true }) paymentCustomerId: string | null;

  /**
   * Carried in session tokens as `ver`; raised when the password or two-factor state changes,
   * which ends every session issued before.
   */
  @Column({ type: 'integer', default: 0 }) tokenVersion: number;

  /**
   * When the credentials last changed (password change or reset, first proof of the address,
   * "end all sessions"); mailed links issued before it are refused. Null until the first change.
   */
  @Column({ type: 'timestamptz', precision: 3, nullable: true })
  credentialsChangedAt: Date | null;

  /** The preference panel; null until first saved. See preferences.dto.ts. */
  @Column({ type: 'jsonb', nullable: true }) preferences: StoredPreferences | null;

  @CreateDateColumn({ type: 'timestamptz', precision: 3 }) createdAt: Date;
  @UpdateDateColumn({ type: 'timestamptz', precision: 3 }) updatedAt: Date;
}
