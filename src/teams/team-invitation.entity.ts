import {
  Check,
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryGeneratedColumn,
} from 'typeorm';
import { User } from '../users/user.entity';
import { Team } from './team.entity';
import type { TeamRole } from './team-role';

/**
 * An invitation to join a team with `role`. The token is given out once and only its SHA-256
 * (hex) is stored. Pending = not accepted, not revoked, `expiresAt` in the future. Deleting the
 * team deletes its invitations; deleting the inviter keeps them (`invitedBy` becomes null).
 */
@Entity('team_invitations')
@Index('UQ_team_invitations_token', ['tokenHash'], { unique: true })
@Index('IDX_team_invitations_team', ['teamId', 'createdAt'])
@Index('IDX_team_invitations_email', ['email'])
@Check('CHK_team_invitations_role', `"role" IN ('OWNER', 'ADMIN', 'MEMBER')`)
export class TeamInvitation {
  @PrimaryGeneratedColumn('uuid') id: string;
  @Column({ type: 'uuid' }) teamId: string;

  @ManyToOne(() => Team, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'teamId' })
  team?: Team;

  /** Trimmed and lower-cased. */
  @Column({ type: 'varchar', length: 320 }) email: string;
  @Column({ type: 'varchar', length: 10 }) role: TeamRole;
  /** SHA-256 of the token, 64 hex characters. */
  @Column({ type: 'varchar', length: 64 }) tokenHash: string;

  @Column({ type: 'uuid', nullable: true }) invitedBy: string | null;
  @ManyToOne(() => User, { onDelete: 'SET NULL' })
  @JoinColumn({ name: 'invitedBy' })
  inviter?: User;

  @Column({ type: 'timestamptz', precision: 3 }) expiresAt: Date;
  @Column({ type: 'timestamptz', precision: 3, nullable: true }) acceptedAt: Date | null;
  @Column({ type: 'timestamptz', precision: 3, nullable: true }) revokedAt: Date | null;
  @CreateDateColumn({ type: 'timestamptz', precision: 3 }) createdAt: Date;
}
