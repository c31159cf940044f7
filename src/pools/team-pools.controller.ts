import { Body, Controller, Get, Param, ParseUUIDPipe, Post, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { CurrentUser } from '../common/auth/auth.decorators';
import type { SessionUser } from '../common/auth/session-user';
import { ApiEnvelopeB } from '../common/openapi/api-envelope';
import { Endpoint } from '../common/openapi/endpoint.decorator';
import {
  PoolTransferDto,
  PoolTransferResultDto,
  PoolUsageQueryDto,
  TeamPoolDto,
  TeamPoolUsageDto,
} from './dto/team-pool.dto';
import { TeamPoolsService } from './team-pools.service';

/**
 * A team's credit pool (envelope B, as every /api/teams route). A non-member gets 404; a MEMBER
 * gets 403 for what needs OWNER or ADMIN.
 */
@ApiTags('teams')
@Controller('api/teams/:id/credits')
export class TeamPoolsController {
  constructor(private readonly pools: TeamPoolsService) {}

  @Get()
  @Endpoint({
    summary: "Read the team's credit pool and my use of it",
    access: 'session',
    errors: [404],
  })
  @ApiEnvelopeB(TeamPoolDto, { description: 'any member' })
  get(
    @CurrentUser() user: SessionUser,
    @Param('id', ParseUUIDPipe) id: string,
    @Query() q: PoolUsageQueryDto,
  ): Promise<TeamPoolDto> {
    return this.pools.get(user, id, q.days);
  }

  @Get('usage')
  @Endpoint({ summary: "Every member's use of the team's pool", access: 'session', errors: [404] })
  @ApiEnvelopeB(TeamPoolUsageDto, { description: 'OWNER or ADMIN' })
  usage(
    @CurrentUser() user: SessionUser,
    @Param('id', ParseUUIDPipe) id: string,
    @Query() q: PoolUsageQueryDto,
  ): Promise<TeamPoolUsageDto> {
    return this.pools.usage(user, id, q.days);
  }

  @Post('transfers')
  @Endpoint({
    summary: "Move credits from my balance to the team's pool",
    access: 'session',
    errors: [402, 404],
    body: { type: PoolTransferDto, example: { amount: 500 } },
  })
  @ApiEnvelopeB(PoolTransferResultDto, {
    status: 201,
    description: 'OWNER or ADMIN; one transaction, an entry on each side',
  })
  transfer(
    @CurrentUser() user: SessionUser,
    @Param('id', ParseUUIDPipe) id: string,
    @Body() dto: PoolTransferDto,
  ): Promise<PoolTransferResultDto> {
    return this.pools.transfer(user, id, dto.amount);
  }
}
