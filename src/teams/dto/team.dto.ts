import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsIn, IsOptional, IsString, MaxLength, MinLength, ValidateIf } from 'class-validator';
import { IsBoundedString } from '../../common/validation/validators';
import type { User } from '../../users/user.entity';
import type { TeamMember } from '../team-member.entity';
import { TEAM_ROLES, type TeamRole } from '../team-role';
import type { Team } from '../team.entity';

const trim = ({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim() : value);

/** POST /api/teams: `name` 1–100 characters, `description` up to 1000. */
export class CreateTeamDto {
  @IsBoundedString(1, 100) name: string;
  @IsBoundedString(0, 1000, true) description?: string;
}

/** PATCH /api/teams/{id}: any subset; `description: null` (or "") clears it. */
export class UpdateTeamDto {
  @ApiPropertyOptional({ minLength: 1, maxLength: 100 })
  @ValidateIf((_o, v) => v !== undefined) // null is refused: a team always has a name
  @Transform(trim)
  @IsString()
  @MinLength(1)
  @MaxLength(100)
  name?: string;

  @ApiPropertyOptional({ maxLength: 1000, nullable: true, type: String })
  @IsOptional()
  @Transform(trim)
  @IsString()
  @MaxLength(1000)
  description?: string | null;
}

/** PATCH /api/teams/{id}/members/{userId}. */
export class ChangeMemberRoleDto {
  @ApiProperty({ enum: TEAM_ROLES }) @IsIn(TEAM_ROLES) role: TeamRole;
}

export class TeamDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty() name: string;
  @ApiProperty({ nullable: true, type: String }) description: string | null;
  @ApiProperty({ enum: TEAM_ROLES, description: "the caller's role in the team" }) role: TeamRole;
  @ApiProperty() createdAt: string;
  @ApiProperty() updatedAt: string;
}

/** A member as the team's members see them: the user's public fields and their team role. */
export class TeamMemberDto {
  @ApiProperty({ format: 'uuid', description: 'user id' }) id: string;
  @ApiProperty({ nullable: true, type: String }) name: string | null;
  @ApiProperty() email: string;
  @ApiProperty({ nullable: true, type: String }) avatar: string | null;
  @ApiProperty({ enum: TEAM_ROLES }) role: TeamRole;
  @ApiProperty() joinedAt: string;
}

export class TeamDetailDto extends TeamDto {
  @ApiProperty({ type: [TeamMemberDto], description: 'oldest member first' })
  members: TeamMemberDto[];
}

export function mapTeam(team: Team, role: TeamRole): TeamDto {
  return {
    id: team.id,
    name: team.name,
    description: team.description,
    role,
    createdAt: team.createdAt.toISOString(),
    updatedAt: team.updatedAt.toISOString(),
  };
}

/** `member.user` must be loaded. */
export function mapMember(member: TeamMember & { user?: User }): TeamMemberDto {
  const user = member.user!;
  return {
    id: member.userId,
    name: user.name,
    email: user.email,
    avatar: user.avatar,
    role: member.role,
    joinedAt: member.createdAt.toISOString(),
  };
}

export function mapTeamDetail(team: Team, role: TeamRole, members: TeamMember[]): TeamDetailDto {
  return { ...mapTeam(team, role), members: members.map(mapMember) };
}
