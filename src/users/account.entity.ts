import {
  Column,
  CreateDateColumn,
  Entity,
  Index,
  ManyToOne,
  PrimaryGeneratedColumn,
  Unique,
} from 'typeorm';
import { User } from './user.entity';

/** One linked OAuth identity (spec Authentication 2): provider + providerAccountId is unique. */
@Entity('accounts')
@Unique('UQ_accounts_provider_account', ['provider', 'providerAccountId'])
export class Account {
  @PrimaryGeneratedColumn('uuid') id: string;

  @Index('IDX_accounts_user')
  @Column({ type: 'uuid' })
  userId: string;

  @ManyToOne(() => User, { onDelete: 'CASCADE' })
  user?: User;

  /** OAuth provider id, e.g. `google`, `github`. */
  @Column({ type: 'varchar', length: 32 }) provider: string;
  @Column({ type: 'varchar', length: 255 }) providerAccountId: string;
  @CreateDateColumn({ type: 'timestamptz', precision: 3 }) createdAt: Date;
}
