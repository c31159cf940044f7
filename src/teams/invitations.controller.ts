import {
  Body,
  Controller,
  Delete,
  Get,
  HttpCode,
  Param,
  ParseUUIDPipe,
  Post,
} from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { CurrentUser } from '../common/auth/auth.decorators';
import type { SessionUser } from '../common/auth/session-user';
import { Clock } from '../common/clock/clock';
import { ApiEnvelopeB } from '../common/openapi/api-envelope';
import { Endpoint } from '../common/openapi/endpoint.decorator';
import {
  AcceptInvitationDto,
  CreatedInvitationDto,
  CreateInvitationDto,
  InvitationDto,
  mapInvitation,
  mapMyInvitation,
  MyInvitationDto,
} from './dto/invitation.dto';
import { mapTeam, TeamDto } from './dto/team.dto';
import { TeamInvitationsService } from './team-invitations.service';

/** A team's invitations (OWNER or ADMIN), envelope B. */
@ApiTags('teams')
@Controller('api/teams/:id/invitations')
export class TeamInvitationsController {
  constructor(
    private readonly invitations: TeamInvitationsService,
    private readonly clock: Clock,
  ) {}

  @Post()
  @Endpoint({
    summary: 'Invite someone to a team by email',
    access: 'session',
    errors: [403, 404, { status: 409, description: 'Already a member (`code`: ALREADY_MEMBER)' }],
    body: { type: CreateInvitationDto, example: { email: 'grace@example.com', role: 'MEMBER' } },
  })
  @ApiEnvelopeB(CreatedInvitationDto, { status: 201, description: 'the token is shown only here' })
  async create(
    @CurrentUser() user: SessionUser,
    @Param('id', ParseUUIDPipe) id: string,
    @Body() dto: CreateInvitationDto,
  ): Promise<CreatedInvitationDto> {
    const { invitation, token, acceptUrl } = await this.invitations.create(user, id, dto);
    return { ...mapInvitation(invitation, this.clock.now()), token, acceptUrl };
  }

  @Get()
  @ApiEnvelopeB(InvitationDto, {
    isArray: true,
    description: 'not accepted or revoked; newest first',
  })
  @Endpoint({
    summary: "List a team's pending invitations",
    access: 'session',
    errors: [403, 404],
  })
  async list(
    @CurrentUser() user: SessionUser,
    @Param('id', ParseUUIDPipe) id: string,
  ): Promise<InvitationDto[]> {
    const now = this.clock.now();
    return (await this.invitations.listForTeam(user, id)).map((i) => mapInvitation(i, now));
  }

  @Delete(':invitationId')
  @HttpCode(200)
  @Endpoint({ summary: 'Revoke an invitation', access: 'session', errors: [403, 404] })
  @ApiEnvelopeB(null, { description: 'revokes a pending invitation' })
  async revoke(
    @CurrentUser() user: SessionUser,
    @Param('id', ParseUUIDPipe) id: string,
    @Param('invitationId', ParseUUIDPipe) invitationId: string,
  ): Promise<void> {
    await this.invitations.revoke(user, id, invitationId);
  }
}

/** The session user's side of invitations, envelope B. */
@ApiTags('teams')
@Controller('api/invitations')
export class InvitationsController {
  constructor(
    private readonly invitations: TeamInvitationsService,
    private readonly clock: Clock,
  ) {}

  @Get()
  @Endpoint({ summary: 'List invitations addressed to me', access: 'session' })
  @ApiEnvelopeB(MyInvitationDto, { isArray: true, description: 'pending, addressed to my email' })
  async listMine(@CurrentUser() user: SessionUser): Promise<MyInvitationDto[]> {
    const now = this.clock.now();
    return (await this.invitations.listMine(user)).map((i) => mapMyInvitation(i, now));
  }

  @Post('accept')
  @HttpCode(200)
  @Endpoint({
    summary: 'Accept an invitation',
    access: 'session',
    errors: [
      { status: 403, description: 'Addressed to another email (`INVITATION_EMAIL_MISMATCH`)' },
      404,
      { status: 410, description: '`code`: INVITATION_GONE, `reason`: EXPIRED, REVOKED or USED' },
    ],
    body: { type: AcceptInvitationDto, example: { token: 'inv_4f9d2c7a1b8e4f3c9a6d5e2b1c0f8a7d' } },
  })
  @ApiEnvelopeB(TeamDto, { description: 'the team and my role; accepting again is the same' })
  async accept(
    @CurrentUser() user: SessionUser,
    @Body() dto: AcceptInvitationDto,
  ): Promise<TeamDto> {
    const { team, role } = await this.invitations.accept(user, dto.token);
    return mapTeam(team, role);
  }
}
