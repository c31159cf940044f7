import {
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  OneToOne,
  PrimaryColumn,
  PrimaryGeneratedColumn,
  UpdateDateColumn,
} from 'typeorm';
import { User } from '../../users/user.entity';

/**
 * A user's TOTP secret: pending while `enabledAt` is null (set up, not confirmed),
 * enabled after. At most one per user; setup again before enabling replaces it.
 */
@Entity('two_factor')
export class TwoFactor {
  @PrimaryColumn({ type: 'uuid', primaryKeyConstraintName: 'PK_two_factor' }) userId: string;

  @OneToOne(() => User, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'userId', foreignKeyConstraintName: 'FK_two_factor_user' })
  user?: User;

  /** The base32 secret, AES-256-GCM encrypted with ENCRYPTION_KEY (see secret-cipher.ts). */
  @Column({ type: 'varchar', length: 255 }) secret: string;
  @Column({ type: 'timestamptz', precision: 3, nullable: true }) enabledAt: Date | null;
  /** The last accepted 30 s step (Unix seconds / 30); a code of this step or older is refused. */
  @Column({ type: 'bigint', nullable: true }) lastUsedStep: string | null;
  @CreateDateColumn({ type: 'timestamptz', precision: 3 }) createdAt: Date;
  @UpdateDateColumn({ type: 'timestamptz', precision: 3 }) updatedAt: Date;
}

/** One single-use recovery code, stored as its HMAC-SHA256 only (see recovery-codes.ts). */
@Entity('recovery_codes')
@Index('UQ_recovery_codes_user_hash', ['userId', 'codeHash'], { unique: true })
export class RecoveryCode {
  @PrimaryGeneratedColumn('uuid', { primaryKeyConstraintName: 'PK_recovery_codes' }) id: string;
  @Column({ type: 'uuid' }) userId: string;

  @ManyToOne(() => User, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'userId', foreignKeyConstraintName: 'FK_recovery_codes_user' })
  user?: User;

  /** Hex HMAC-SHA256 of the normalised code. */
  @Column({ type: 'varchar', length: 64 }) codeHash: string;
  @Column({ type: 'timestamptz', precision: 3, nullable: true }) usedAt: Date | null;
  @CreateDateColumn({ type: 'timestamptz', precision: 3 }) createdAt: Date;
}
