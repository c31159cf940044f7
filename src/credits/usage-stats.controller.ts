import { Controller, Get, Param, ParseUUIDPipe, Query } from '@nestjs/common';
import { ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { CurrentUser } from '../common/auth/auth.decorators';
import type { SessionUser } from '../common/auth/session-user';
import { ApiEnvelopeB } from '../common/openapi/api-envelope';
import { Endpoint } from '../common/openapi/endpoint.decorator';
import { UsageQueryDto, UsageStatsDto } from './dto/usage-stats.dto';
import { UsageStatsService } from './usage-stats.service';

const RANGE = 'Local days in APP_TIMEZONE, at most 366; `from` after `to` is 400.';

/** My usage statistics (envelope C, like the other credits routes). */
@ApiTags('credits')
@Controller('api/credits/usage')
export class UsageStatsController {
  constructor(private readonly stats: UsageStatsService) {}

  @Get()
  @Endpoint({
    summary: 'My usage per day, per model or per API key',
    description: RANGE,
    access: 'session',
    scope: 'credits:read',
  })
  @ApiOkResponse({ type: UsageStatsDto })
  usage(@CurrentUser() user: SessionUser, @Query() q: UsageQueryDto): Promise<UsageStatsDto> {
    return this.stats.usage(user.id, q);
  }
}

/** Any user's usage statistics for admins (envelope B, as every /api/users route). */
@ApiTags('users')
@Controller('api/users/:id/usage')
export class UserUsageStatsController {
  constructor(private readonly stats: UsageStatsService) {}

  @Get()
  @Endpoint({
    summary: "A user's usage per day or per model (admin)",
    description: RANGE,
    access: { roles: ['ADMIN'] },
    errors: [404],
  })
  @ApiEnvelopeB(UsageStatsDto)
  usage(@Param('id', ParseUUIDPipe) id: string, @Query() q: UsageQueryDto): Promise<UsageStatsDto> {
    return this.stats.usageOf(id, q);
  }
}
