import {
  Body,
  Controller,
  Delete,
  Get,
  HttpCode,
  Param,
  ParseUUIDPipe,
  Patch,
  Post,
} from '@nestjs/common';
import { ApiBearerAuth, ApiCookieAuth, ApiTags } from '@nestjs/swagger';
import { CurrentUser } from '../common/auth/auth.decorators';
import type { SessionUser } from '../common/auth/session-user';
import { ApiEnvelopeB } from '../common/openapi/api-envelope';
import { ApiErrors } from '../common/openapi/api-errors';
import {
  CreateTeamDto,
  mapTeam,
  mapTeamDetail,
  TeamDetailDto,
  TeamDto,
  UpdateTeamDto,
} from './dto/team.dto';
import { TeamsService } from './teams.service';

/**
 * Teams (issue 5), envelope B. A non-member gets 404 for any team; a member lacking the role
 * gets 403. Roles are read from the database on every request.
 */
@ApiTags('teams')
@ApiBearerAuth()
@ApiCookieAuth()
@Controller('api/teams')
export class TeamsController {
  constructor(private readonly teams: TeamsService) {}

  @Post()
  @ApiEnvelopeB(TeamDto, { status: 201, description: 'the creator is OWNER' })
  @ApiErrors(400, 401)
  async create(@CurrentUser() user: SessionUser, @Body() dto: CreateTeamDto): Promise<TeamDto> {
    const { team, role } = await this.teams.create(user, dto);
    return mapTeam(team, role);
  }

  @Get()
  @ApiEnvelopeB(TeamDto, { isArray: true, description: "the caller's teams by name" })
  @ApiErrors(401)
  async list(@CurrentUser() user: SessionUser): Promise<TeamDto[]> {
    return (await this.teams.listMine(user)).map((t) => mapTeam(t.team, t.role));
  }

  @Get(':id')
  @ApiEnvelopeB(TeamDetailDto, { description: 'any member' })
  @ApiErrors(401, 404)
  async get(
    @CurrentUser() user: SessionUser,
    @Param('id', ParseUUIDPipe) id: string,
  ): Promise<TeamDetailDto> {
    const { team, role, members } = await this.teams.get(user, id);
    return mapTeamDetail(team, role, members);
  }

  @Patch(':id')
  @ApiEnvelopeB(TeamDto, { description: 'OWNER or ADMIN' })
  @ApiErrors(400, 401, 403, 404)
  async update(
    @CurrentUser() user: SessionUser,
    @Param('id', ParseUUIDPipe) id: string,
    @Body() dto: UpdateTeamDto,
  ): Promise<TeamDto> {
    const { team, role } = await this.teams.update(user, id, dto);
    return mapTeam(team, role);
  }

  @Delete(':id')
  @HttpCode(200)
  @ApiEnvelopeB(null, { description: 'OWNER only; chats stay with their owners, unshared' })
  @ApiErrors(401, 403, 404)
  async remove(
    @CurrentUser() user: SessionUser,
    @Param('id', ParseUUIDPipe) id: string,
  ): Promise<void> {
    await this.teams.remove(user, id);
  }
}
