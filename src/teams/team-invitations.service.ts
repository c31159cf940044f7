import { Inject, Injectable, Logger } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { teamsConfig } from './teams.config';
import { appSettingsConfig } from '../config/app-settings.config';
import { InjectDataSource, InjectRepository } from '@nestjs/typeorm';
import { createHash, randomBytes } from 'node:crypto';
import { DataSource, IsNull, MoreThan, Repository } from 'typeorm';
import type { SessionUser } from '../common/auth/session-user';
import { Clock } from '../common/clock/clock';
import { AppError, CommonErrorCode } from '../common/errors/app-error';
import { TeamsErrorCode } from './teams.errors';
import type { CreateInvitationDto } from './dto/invitation.dto';
import { InvitationNotifier } from './invitation-notifier';
import { TeamInvitation } from './team-invitation.entity';
import { TeamMember } from './team-member.entity';
import type { TeamRole } from './team-role';
import { Team } from './team.entity';
import type { TeamWithRole } from './teams.service';
import { TeamsService } from './teams.service';

export interface CreatedInvitation {
  invitation: TeamInvitation;
  /** The one-time secret: returned once, stored only as its SHA-256. */
  token: string;
  acceptUrl: string;
}

const DAY_MS = 86_400_000;
const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');
const notFound = () => new AppError(CommonErrorCode.NOT_FOUND, 'Invitation not found');
const gone = (reason: 'EXPIRED' | 'REVOKED' | 'USED') =>
  new AppError(TeamsErrorCode.INVITATION_GONE, `This invitation is no longer valid (${reason})`, {
    reason,
  });

/** Team invitations: create (token returned once), list, revoke, accept. */
@Injectable()
export class TeamInvitationsService {
  private readonly logger = new Logger('Invitations');

  constructor(
    private readonly teams: TeamsService,
    @InjectRepository(TeamInvitation) private readonly invitations: Repository<TeamInvitation>,
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly notifier: InvitationNotifier,
    private readonly clock: Clock,
    @Inject(teamsConfig.KEY) private readonly settings: ConfigType<typeof teamsConfig>,
    @Inject(appSettingsConfig.KEY)
    private readonly appSettings: ConfigType<typeof appSettingsConfig>,
  ) {}

  /**
   * Invites `email` with `role` (default MEMBER), valid INVITATION_TTL_DAYS days. OWNER or
   * ADMIN only (403 for MEMBER, 404 for non-members); only an OWNER may invite an OWNER (403).
   * 409 ALREADY_MEMBER when the email belongs to a member. A pending invitation to the same
   * email is revoked, so only the newest token works. Then calls the InvitationNotifier.
   */
  async create(
    user: SessionUser,
    teamId: string,
    dto: CreateInvitationDto,
  ): Promise<CreatedInvitation> {
    const callerRole = await this.teams.requireTeamRole(user, teamId, 'ADMIN');
    const role: TeamRole = dto.role ?? 'MEMBER';
    if (role === 'OWNER' && callerRole !== 'OWNER')
      throw new AppError(CommonErrorCode.FORBIDDEN, 'Only an OWNER may invite an OWNER');
    const token = randomBytes(32).toString('base64url');
    const now = this.clock.now();
    const ttlDays = this.settings.invitationTtlDays;
    const { invitation, team } = await this.dataSource.transaction(async (m) => {
      const member = await m
        .createQueryBuilder(TeamMember, 'm')
        .innerJoin('m.user', 'u')
        .where('m.teamId = :teamId AND u.email = :email', { teamId, email: dto.email })
        .getExists();
      if (member)
        throw new AppError(TeamsErrorCode.ALREADY_MEMBER, 'This email belongs to a member');
      await m.update(
        TeamInvitation,
        { teamId, email: dto.email, acceptedAt: IsNull(), revokedAt: IsNull() },
        { revokedAt: now },
      );
      const saved = await m.save(
        m.create(TeamInvitation, {
          teamId,
          email: dto.email,
          role,
          tokenHash: hashToken(token),
          invitedBy: user.id,
          expiresAt: new Date(now.getTime() + ttlDays * DAY_MS),
          acceptedAt: null,
          revokedAt: null,
        }),
      );
      return { invitation: saved, team: await m.findOneByOrFail(Team, { id: teamId }) };
    });
    const acceptUrl = `${this.appSettings.baseUrl}/invitations/accept?token=${token}`;
    await this.notifier
      .notify({
        email: invitation.email,
        teamId,
        teamName: team.name,
        role,
        acceptUrl,
        expiresAt: invitation.expiresAt,
        invitedBy: { id: user.id, name: user.name, email: user.email },
      })
      .catch((err: unknown) =>
        this.logger.warn(`Invitation ${invitation.id} could not be delivered: ${String(err)}`),
      );
    return { invitation, token, acceptUrl };
  }

  /** Invitations not yet accepted or revoked (pending or expired), newest first. OWNER/ADMIN. */
  async listForTeam(user: SessionUser, teamId: string): Promise<TeamInvitation[]> {
    await this.teams.requireTeamRole(user, teamId, 'ADMIN');
    return this.invitations.find({
      where: { teamId, acceptedAt: IsNull(), revokedAt: IsNull() },
      order: { createdAt: 'DESC', id: 'DESC' },
    });
  }

  /** Revokes a pending invitation (OWNER/ADMIN); 404 when it is not pending in this team. */
  async revoke(user: SessionUser, teamId: string, invitationId: string): Promise<void> {
    await this.teams.requireTeamRole(user, teamId, 'ADMIN');
    const result = await this.invitations.update(
      { id: invitationId, teamId, acceptedAt: IsNull(), revokedAt: IsNull() },
      { revokedAt: this.clock.now() },
    );
    if (!result.affected) throw notFound();
  }

  /** Pending, unexpired invitations addressed to the session user's email, with team names. */
  listMine(user: SessionUser): Promise<TeamInvitation[]> {
    return this.invitations.find({
      where: {
        email: user.email.toLowerCase(),
        acceptedAt: IsNull(),
        revokedAt: IsNull(),
        expiresAt: MoreThan(this.clock.now()),
      },
      relations: { team: true },
      order: { createdAt: 'DESC', id: 'DESC' },
    });
  }

  /**
   * Accepts an invitation for the session user and returns the team with their role.
   * 404 unknown token; 403 INVITATION_EMAIL_MISMATCH when the user's email differs
   * (case-insensitive); 410 INVITATION_GONE (`reason` EXPIRED, REVOKED or USED) otherwise.
   * Idempotent: accepting again while a member answers the same and adds nothing. The
   * invitation row is locked, and the membership insert is ON CONFLICT DO NOTHING, so two
   * concurrent accepts give one membership.
   */
  async accept(user: SessionUser, token: string): Promise<TeamWithRole> {
    return this.dataSource.transaction(async (m) => {
      const found = await m.findOneBy(TeamInvitation, { tokenHash: hashToken(token) });
      if (!found) throw notFound();
      // Team row first, then the invitation: the order a team deletion takes them in.
      const team = await m
        .createQueryBuilder(Team, 't')
        .where('t.id = :id', { id: found.teamId })
        .setLock('for_key_share')
        .getOne();
      const inv = await m
        .createQueryBuilder(TeamInvitation, 'i')
        .where('i.id = :id', { id: found.id })
        .setLock('pessimistic_write')
        .getOne();
      if (!team || !inv) throw notFound();
      if (inv.email !== user.email.trim().toLowerCase())
        throw new AppError(
          TeamsErrorCode.INVITATION_EMAIL_MISMATCH,
          'This invitation was sent to another email address',
        );
      const key = { teamId: inv.teamId, userId: user.id };
      if (inv.acceptedAt) {
        const existing = await m.findOneBy(TeamMember, key);
        if (existing) return { team, role: existing.role };
        throw gone('USED');
      }
      if (inv.revokedAt) throw gone('REVOKED');
      const now = this.clock.now();
      if (inv.expiresAt <= now) throw gone('EXPIRED');
      await m
        .createQueryBuilder()
        .insert()
        .into(TeamMember)
        .values({ ...key, role: inv.role })
        .orIgnore()
        .execute();
      await m.update(TeamInvitation, { id: inv.id }, { acceptedAt: now });
      const member = await m.findOneByOrFail(TeamMember, key);
      return { team, role: member.role };
    });
  }
}
