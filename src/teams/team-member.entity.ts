import {
  Check,
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryColumn,
} from 'typeorm';
import { User } from '../users/user.entity';
import { Team } from './team.entity';
import type { TeamRole } from './team-role';

/**
 * A user's membership of a team, one per (team, user): the primary key is the pair, so two
 * concurrent accepts cannot add a user twice. Deleting the team or the user deletes it.
 * A database trigger (migration `Teams`) keeps an OWNER when a cascade removes the last one:
 * the longest-standing ADMIN, else MEMBER, is promoted; a team left with no member is deleted.
 */
@Entity('team_members')
@Index('IDX_team_members_user', ['userId'])
@Check('CHK_team_members_role', `"role" IN ('OWNER', 'ADMIN', 'MEMBER')`)
export class TeamMember {
  @PrimaryColumn({ type: 'uuid', primaryKeyConstraintName: 'PK_team_members' }) teamId: string;
  @PrimaryColumn({ type: 'uuid', primaryKeyConstraintName: 'PK_team_members' }) userId: string;

  @ManyToOne(() => Team, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'teamId' })
  team?: Team;

  @ManyToOne(() => User, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'userId' })
  user?: User;

  @Column({ type: 'varchar', length: 10 }) role: TeamRole;
  /** When the user joined. */
  @CreateDateColumn({ type: 'timestamptz', precision: 3 }) createdAt: Date;
}
