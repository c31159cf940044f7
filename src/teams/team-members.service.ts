import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { AuditService } from '../audit/audit.service';
import type { SessionUser } from '../common/auth/session-user';
import { AppError, CommonErrorCode } from '../common/errors/app-error';
import { TeamsErrorCode } from './teams.errors';
import { TeamMember } from './team-member.entity';
import { memberChangeDenied, type TeamRole } from './team-role';
import { TeamsService } from './teams.service';

/**
 * Member management: list, change role, remove or leave. Changes lock every member row of the
 * team (`FOR UPDATE`, in user-id order) before deciding, so two concurrent changes cannot both
 * pass the last-owner check.
 */
@Injectable()
export class TeamMembersService {
  constructor(
    private readonly teams: TeamsService,
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly audit: AuditService,
  ) {}

  /** Members with their user fields, oldest first; any member may list. 404 for others. */
  async list(user: SessionUser, teamId: string): Promise<TeamMember[]> {
    await this.teams.requireTeamRole(user, teamId, 'MEMBER');
    return this.teams.listMembers(teamId);
  }

  /**
   * Sets `targetUserId`'s role and returns the member with `user` loaded. Throws 404 when the
   * caller or the target is not a member, 403 FORBIDDEN per `memberChangeDenied`, and 409
   * LAST_OWNER when it would demote the team's only OWNER.
   */
  async changeRole(
    user: SessionUser,
    teamId: string,
    targetUserId: string,
    role: TeamRole,
  ): Promise<TeamMember> {
    await this.dataSource.transaction(async (m) => {
      const target = await this.authorize(m, user, teamId, targetUserId, role);
      if (target.role === role) return;
      await m.update(TeamMember, { teamId, userId: targetUserId }, { role });
      // Ownership moves (an OWNER made or unmade) are audited; other role changes are not.
      if (target.role === 'OWNER' || role === 'OWNER')
        await this.audit.record(m, {
          action: 'team.ownership.change',
          targetType: 'team',
          targetId: teamId,
          details: { userId: targetUserId, from: target.role, to: role },
        });
    });
    const members = await this.teams.listMembers(teamId);
    return members.find((x) => x.userId === targetUserId)!;
  }

  /**
   * Removes `targetUserId` from the team; a member removing themself leaves. Same errors as
   * `changeRole` (409 LAST_OWNER when the only OWNER would leave). Their chats stay shared.
   */
  async remove(user: SessionUser, teamId: string, targetUserId: string): Promise<void> {
    await this.dataSource.transaction(async (m) => {
      const target = await this.authorize(m, user, teamId, targetUserId, null);
      await m.delete(TeamMember, { teamId, userId: targetUserId });
      if (target.role === 'OWNER')
        await this.audit.record(m, {
          action: 'team.ownership.change',
          targetType: 'team',
          targetId: teamId,
          details: { userId: targetUserId, from: 'OWNER', to: null },
        });
    });
  }

  /** Locks the team's member rows, then applies the role rules and the last-owner rule. */
  private async authorize(
    m: EntityManager,
    user: SessionUser,
    teamId: string,
    targetUserId: string,
    next: TeamRole | null,
  ): Promise<TeamMember> {
    const rows = await m
      .createQueryBuilder(TeamMember, 'm')
      .where('m.teamId = :teamId', { teamId })
      .orderBy('m.userId', 'ASC')
      .setLock('pessimistic_write')
      .getMany();
    const actor = rows.find((r) => r.userId === user.id);
    if (!actor) throw new AppError(CommonErrorCode.NOT_FOUND, 'Team not found');
    const target = rows.find((r) => r.userId === targetUserId);
    if (!target) throw new AppError(CommonErrorCode.NOT_FOUND, 'Member not found');
    const denied = memberChangeDenied(actor.role, target.role, next, actor === target);
    if (denied) throw new AppError(CommonErrorCode.FORBIDDEN, denied);
    const owners = rows.filter((r) => r.role === 'OWNER').length;
    if (target.role === 'OWNER' && next !== 'OWNER' && owners === 1)
      throw new AppError(
        TeamsErrorCode.LAST_OWNER,
        'A team needs an OWNER: make another member OWNER first, or delete the team',
      );
    return target;
  }
}
