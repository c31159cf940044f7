import { Injectable } from '@nestjs/common';
import { InjectDataSource, InjectRepository } from '@nestjs/typeorm';
import { DataSource, Repository } from 'typeorm';
import type { SessionUser } from '../common/auth/session-user';
import { AppError, CommonErrorCode } from '../common/errors/app-error';
import type { CreateTeamDto, UpdateTeamDto } from './dto/team.dto';
import { TeamMember } from './team-member.entity';
import { hasTeamRole, type TeamRole } from './team-role';
import { Team } from './team.entity';

export interface TeamWithRole {
  team: Team;
  /** The caller's role in the team. */
  role: TeamRole;
}

export interface TeamDetail extends TeamWithRole {
  /** With `user` loaded, oldest member first. */
  members: TeamMember[];
}

const teamNotFound = () => new AppError(CommonErrorCode.NOT_FOUND, 'Team not found');

/**
 * Teams and the membership questions other modules ask (`requireTeamRole`, `roleOf`,
 * `teamIdsOf`). Authorization is read from `team_members` on every call, never from the JWT,
 * so a role change applies to the next request.
 */
@Injectable()
export class TeamsService {
  constructor(
    @InjectRepository(Team) private readonly teams: Repository<Team>,
    @InjectRepository(TeamMember) private readonly members: Repository<TeamMember>,
    @InjectDataSource() private readonly dataSource: DataSource,
  ) {}

  /**
   * The one team authorization check. Returns the caller's role in `teamId`. Throws AppError
   * NOT_FOUND (404) when the caller is not a member (or the team does not exist), FORBIDDEN
   * (403) when their role is below `minRole` (OWNER > ADMIN > MEMBER).
   */
  async requireTeamRole(user: SessionUser, teamId: string, minRole: TeamRole): Promise<TeamRole> {
    const role = await this.roleOf(user.id, teamId);
    if (!role) throw teamNotFound();
    if (!hasTeamRole(role, minRole))
      throw new AppError(
        CommonErrorCode.FORBIDDEN,
        `This action requires the team role ${minRole}`,
      );
    return role;
  }

  /** The user's role in the team, or null when they are not a member. */
  async roleOf(userId: string, teamId: string): Promise<TeamRole | null> {
    const row = await this.members.findOne({ select: { role: true }, where: { teamId, userId } });
    return row?.role ?? null;
  }

  /** Ids of every team the user belongs to. */
  async teamIdsOf(userId: string): Promise<string[]> {
    const rows = await this.members.find({ select: { teamId: true }, where: { userId } });
    return rows.map((r) => r.teamId);
  }

  /** Creates a team; the creator becomes its OWNER in the same transaction. */
  async create(user: SessionUser, dto: CreateTeamDto): Promise<TeamWithRole> {
    const team = await this.dataSource.transaction(async (m) => {
      const created = await m.save(
        m.create(Team, { name: dto.name, description: dto.description || null }),
      );
      await m.insert(TeamMember, { teamId: created.id, userId: user.id, role: 'OWNER' });
      return created;
    });
    return { team, role: 'OWNER' };
  }

  /** The caller's teams with their role in each, by name. */
  async listMine(user: SessionUser): Promise<TeamWithRole[]> {
    const rows = await this.members
      .createQueryBuilder('m')
      .innerJoinAndSelect('m.team', 't')
      .where('m.userId = :userId', { userId: user.id })
      .orderBy('t.name', 'ASC')
      .addOrderBy('t.id', 'ASC')
      .getMany();
    return rows.map((m) => ({ team: m.team!, role: m.role }));
  }

  /** The team with its members; any member may read it. 404 for anyone else. */
  async get(user: SessionUser, teamId: string): Promise<TeamDetail> {
    const role = await this.requireTeamRole(user, teamId, 'MEMBER');
    const [team, members] = await Promise.all([this.find(teamId), this.listMembers(teamId)]);
    return { team, role, members };
  }

  /** Members of a team with their user loaded, oldest first. No access check: callers do it. */
  listMembers(teamId: string): Promise<TeamMember[]> {
    return this.members
      .createQueryBuilder('m')
      .innerJoinAndSelect('m.user', 'u')
      .where('m.teamId = :teamId', { teamId })
      .orderBy('m.createdAt', 'ASC')
      .addOrderBy('m.userId', 'ASC')
      .getMany();
  }

  /** Renames or re-describes the team (OWNER or ADMIN; 403 for MEMBER, 404 for others). */
  async update(user: SessionUser, teamId: string, dto: UpdateTeamDto): Promise<TeamWithRole> {
    const role = await this.requireTeamRole(user, teamId, 'ADMIN');
    const team = await this.find(teamId);
    if (dto.name !== undefined) team.name = dto.name;
    if (dto.description !== undefined) team.description = dto.description || null;
    return { team: await this.teams.save(team), role };
  }

  /**
   * Deletes the team (OWNER only). Memberships and invitations go with it; its chats stay with
   * their owners, unshared (foreign keys).
   */
  async remove(user: SessionUser, teamId: string): Promise<void> {
    await this.requireTeamRole(user, teamId, 'OWNER');
    await this.teams.delete({ id: teamId });
  }

  private async find(teamId: string): Promise<Team> {
    const team = await this.teams.findOneBy({ id: teamId });
    if (!team) throw teamNotFound();
    return team;
  }
}
