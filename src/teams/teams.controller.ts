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
import { ApiTags } from '@nestjs/swagger';
import { CurrentUser } from '../common/auth/auth.decorators';
import type { SessionUser } from '../common/auth/session-user';
import { ApiEnvelopeB } from '../common/openapi/api-envelope';
import { Endpoint } from '../common/openapi/endpoint.decorator';
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
 * Teams, envelope B. A non-member gets 404 for any team; a member lacking the role
 * gets 403. Roles are read from the database on every request.
 */
@ApiTags('teams')
@Controller('api/teams')
export class TeamsController {
  constructor(private readonly teams: TeamsService) {}

  @Post()
  @Endpoint({
    summary: 'Create a team',
    access: 'session',
    body: { type: CreateTeamDto, example: { name: 'Research', description: 'Papers and notes' } },
  })
  @ApiEnvelopeB(TeamDto, { status: 201, description: 'the creator is OWNER' })
  async create(@CurrentUser() user: SessionUser, @Body() dto: CreateTeamDto): Promise<TeamDto> {
    const { team, role } = await this.teams.create(user, dto);
    return mapTeam(team, role);
  }

  @Get()
  @Endpoint({ summary: 'List my teams', access: 'session' })
  @ApiEnvelopeB(TeamDto, { isArray: true, description: "the caller's teams by name" })
  async list(@CurrentUser() user: SessionUser): Promise<TeamDto[]> {
    return (await this.teams.listMine(user)).map((t) => mapTeam(t.team, t.role));
  }

  @Get(':id')
  @Endpoint({ summary: 'Read a team with its members', access: 'session', errors: [404] })
  @ApiEnvelopeB(TeamDetailDto, { description: 'any member' })
  async get(
    @CurrentUser() user: SessionUser,
    @Param('id', ParseUUIDPipe) id: string,
  ): Promise<TeamDetailDto> {
    const { team, role, members } = await this.teams.get(user, id);
    return mapTeamDetail(team, role, members);
  }

  @Patch(':id')
  @Endpoint({
    summary: 'Rename or describe a team',
    access: 'session',
    errors: [403, 404],
    body: { type: UpdateTeamDto, example: { name: 'Research lab', description: null } },
  })
  @ApiEnvelopeB(TeamDto, { description: 'OWNER or ADMIN' })
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
  @Endpoint({ summary: 'Delete a team', access: 'session', errors: [403, 404] })
  @ApiEnvelopeB(null, { description: 'OWNER only; chats stay with their owners, unshared' })
  async remove(
    @CurrentUser() user: SessionUser,
    @Param('id', ParseUUIDPipe) id: string,
  ): Promise<void> {
    await this.teams.remove(user, id);
  }
}
