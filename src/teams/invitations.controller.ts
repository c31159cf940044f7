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
import { ApiBearerAuth, ApiCookieAuth, ApiResponse, ApiTags } from '@nestjs/swagger';
import { CurrentUser } from '../common/auth/auth.decorators';
import type { SessionUser } from '../common/auth/session-user';
import { Clock } from '../common/clock/clock';
import { ApiEnvelopeB } from '../common/openapi/api-envelope';
import { ApiErrors } from '../common/openapi/api-errors';
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
@ApiBearerAuth()
@ApiCookieAuth()
@Controller('api/teams/:id/invitations')
export class TeamInvitationsController {
  constructor(
    private readonly invitations: TeamInvitationsService,
    private readonly clock: Clock,
  ) {}

  @Post()
  @ApiEnvelopeB(CreatedInvitationDto, { status: 201, description: 'the token is shown only here' })
  @ApiErrors(400, 401, 403, 404)
  @ApiResponse({ status: 409, description: '`code`: ALREADY_MEMBER' })
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
  @ApiErrors(401, 403, 404)
  async list(
    @CurrentUser() user: SessionUser,
    @Param('id', ParseUUIDPipe) id: string,
  ): Promise<InvitationDto[]> {
    const now = this.clock.now();
    return (await this.invitations.listForTeam(user, id)).map((i) => mapInvitation(i, now));
  }

  @Delete(':invitationId')
  @HttpCode(200)
  @ApiEnvelopeB(null, { description: 'revokes a pending invitation' })
  @ApiErrors(401, 403, 404)
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
@ApiBearerAuth()
@ApiCookieAuth()
@Controller('api/invitations')
export class InvitationsController {
  constructor(
    private readonly invitations: TeamInvitationsService,
    private readonly clock: Clock,
  ) {}

  @Get()
  @ApiEnvelopeB(MyInvitationDto, { isArray: true, description: 'pending, addressed to my email' })
  @ApiErrors(401)
  async listMine(@CurrentUser() user: SessionUser): Promise<MyInvitationDto[]> {
    const now = this.clock.now();
    return (await this.invitations.listMine(user)).map((i) => mapMyInvitation(i, now));
  }

  @Post('accept')
  @HttpCode(200)
  @ApiEnvelopeB(TeamDto, { description: 'the team and my role; accepting again is the same' })
  @ApiErrors(400, 401, 404)
  @ApiResponse({ status: 403, description: '`code`: INVITATION_EMAIL_MISMATCH' })
  @ApiResponse({
    status: 410,
    description: '`code`: INVITATION_GONE, `reason`: EXPIRED, REVOKED or USED',
  })
  async accept(
    @CurrentUser() user: SessionUser,
    @Body() dto: AcceptInvitationDto,
  ): Promise<TeamDto> {
    const { team, role } = await this.invitations.accept(user, dto.token);
    return mapTeam(team, role);
  }
}
