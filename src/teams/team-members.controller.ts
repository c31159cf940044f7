import {
  Body,
  Controller,
  Delete,
  Get,
  HttpCode,
  Param,
  ParseUUIDPipe,
  Patch,
} from '@nestjs/common';
import { ApiBearerAuth, ApiCookieAuth, ApiResponse, ApiTags } from '@nestjs/swagger';
import { CurrentUser } from '../common/auth/auth.decorators';
import type { SessionUser } from '../common/auth/session-user';
import { ApiEnvelopeB } from '../common/openapi/api-envelope';
import { ApiErrors } from '../common/openapi/api-errors';
import { ChangeMemberRoleDto, mapMember, TeamMemberDto } from './dto/team.dto';
import { TeamMembersService } from './team-members.service';

const LAST_OWNER = {
  status: 409,
  description: '`code`: LAST_OWNER: the change would leave the team without an OWNER',
};

/**
 * Team members, envelope B. Only an OWNER grants or removes OWNER; an ADMIN manages MEMBERs;
 * anyone may leave (DELETE their own id) or lower their own role.
 */
@ApiTags('teams')
@ApiBearerAuth()
@ApiCookieAuth()
@Controller('api/teams/:id/members')
export class TeamMembersController {
  constructor(private readonly members: TeamMembersService) {}

  @Get()
  @ApiEnvelopeB(TeamMemberDto, { isArray: true, description: 'any member; oldest first' })
  @ApiErrors(401, 404)
  async list(
    @CurrentUser() user: SessionUser,
    @Param('id', ParseUUIDPipe) id: string,
  ): Promise<TeamMemberDto[]> {
    return (await this.members.list(user, id)).map(mapMember);
  }

  @Patch(':userId')
  @ApiEnvelopeB(TeamMemberDto)
  @ApiErrors(400, 401, 403, 404)
  @ApiResponse(LAST_OWNER)
  async changeRole(
    @CurrentUser() user: SessionUser,
    @Param('id', ParseUUIDPipe) id: string,
    @Param('userId', ParseUUIDPipe) userId: string,
    @Body() dto: ChangeMemberRoleDto,
  ): Promise<TeamMemberDto> {
    return mapMember(await this.members.changeRole(user, id, userId, dto.role));
  }

  @Delete(':userId')
  @HttpCode(200)
  @ApiEnvelopeB(null, { description: 'removes the member; your own id leaves the team' })
  @ApiErrors(401, 403, 404)
  @ApiResponse(LAST_OWNER)
  async remove(
    @CurrentUser() user: SessionUser,
    @Param('id', ParseUUIDPipe) id: string,
    @Param('userId', ParseUUIDPipe) userId: string,
  ): Promise<void> {
    await this.members.remove(user, id, userId);
  }
}
