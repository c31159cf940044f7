import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, Length } from 'class-validator';
import { IsNormalizedEmail } from '../../common/validation/validators';
import type { TeamInvitation } from '../team-invitation.entity';
import { TEAM_ROLES, type TeamRole } from '../team-role';
import type { Team } from '../team.entity';

/** POST /api/teams/{id}/invitations: `role` defaults to MEMBER; only an OWNER may invite an OWNER. */
export class CreateInvitationDto {
  @IsNormalizedEmail() email: string;
  @ApiPropertyOptional({ enum: TEAM_ROLES, default: 'MEMBER' })
  @IsOptional()
  @IsIn(TEAM_ROLES)
  role?: TeamRole;
}

/** POST /api/invitations/accept. */
export class AcceptInvitationDto {
  @ApiProperty({ description: 'the one-time token from the invitation' })
  @IsString()
  @Length(16, 200)
  token: string;
}

export const INVITATION_STATUSES = ['PENDING', 'EXPIRED'] as const;
export type InvitationStatus = (typeof INVITATION_STATUSES)[number];

export class InvitationDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ format: 'uuid' }) teamId: string;
  @ApiProperty() email: string;
  @ApiProperty({ enum: TEAM_ROLES }) role: TeamRole;
  @ApiProperty({ format: 'uuid', nullable: true, type: String, description: 'inviting user' })
  invitedBy: string | null;
  @ApiProperty({ enum: INVITATION_STATUSES }) status: InvitationStatus;
  @ApiProperty() expiresAt: string;
  @ApiProperty() createdAt: string;
}

/** The answer to creating an invitation: the only time the token is ever shown. */
export class CreatedInvitationDto extends InvitationDto {
  @ApiProperty({ description: 'one-time secret; stored only as a hash, never shown again' })
  token: string;
  @ApiProperty({ description: '`{APP_BASE_URL}/invitations/accept?token=…`' }) acceptUrl: string;
}

class InvitationTeamDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty() name: string;
}

/** An invitation addressed to the session user (GET /api/invitations). */
export class MyInvitationDto extends InvitationDto {
  @ApiProperty({ type: InvitationTeamDto }) team: InvitationTeamDto;
}

export function mapInvitation(inv: TeamInvitation, now: Date): InvitationDto {
  return {
    id: inv.id,
    teamId: inv.teamId,
    email: inv.email,
    role: inv.role,
    invitedBy: inv.invitedBy,
    status: inv.expiresAt > now ? 'PENDING' : 'EXPIRED',
    expiresAt: inv.expiresAt.toISOString(),
    createdAt: inv.createdAt.toISOString(),
  };
}

/** `inv.team` must be loaded. */
export function mapMyInvitation(inv: TeamInvitation & { team?: Team }, now: Date): MyInvitationDto {
  return { ...mapInvitation(inv, now), team: { id: inv.team!.id, name: inv.team!.name } };
}
