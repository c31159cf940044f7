import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import type { ApiScope } from '../common/auth/api-scopes';

/**
 * A personal API key. Only a SHA-256 hash of the key is stored; `prefix` (the first
 * 11 characters, `sk-` included) finds the candidates and is shown in lists. Revoked keys stay
 * (their ledger entries name them) with `revokedAt` set.
 */
@Entity('api_keys')
export class ApiKey {
  @PrimaryGeneratedColumn('uuid') id: string;
  @Column({ type: 'uuid' }) userId: string;
  @Column({ type: 'varchar', length: 100 }) name: string;
  @Index('IDX_api_keys_prefix')
  @Column({ type: 'varchar', length: 16 })
  prefix: string;
  @Column({ type: 'bytea', select: false }) keyHash: Buffer;
  @Column({ type: 'text', array: true }) scopes: ApiScope[];
  /** Credits (integer > 0) this key may consume per local day; null: only the plan's limit. */
  @Column({ type: 'integer', nullable: true }) dailyCreditLimit: number | null;
  /**
   * A team's key (made by an OWNER or ADMIN of it, who stays its `userId`): every call through it
   * spends from the team's pool, while its maker is a member. Null: a personal key.
   */
  @Column({ type: 'uuid', nullable: true }) teamId: string | null;
  @Column({ type: 'timestamptz', precision: 3, nullable: true }) expiresAt: Date | null;
  @Column({ type: 'timestamptz', precision: 3, nullable: true }) lastUsedAt: Date | null;
  @Column({ type: 'timestamptz', precision: 3, nullable: true }) revokedAt: Date | null;
  @CreateDateColumn({ type: 'timestamptz', precision: 3 }) createdAt: Date;
}
