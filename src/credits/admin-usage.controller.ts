import { Controller, Get, Query } from '@nestjs/common';
import { ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { Endpoint } from '../common/openapi/endpoint.decorator';
import { AdminUsageService } from './admin-usage.service';
import { AdminUsageDto, AdminUsageQueryDto } from './dto/admin-usage.dto';

/** Usage across every user, for the operators' usage explorer (envelope C, as /api/admin/*). */
@ApiTags('admin')
@Controller('api/admin/usage')
export class AdminUsageController {
  constructor(private readonly usage: AdminUsageService) {}

  @Get()
  @Endpoint({
    summary: 'Usage by user, team, model, API key or day (admin)',
    description:
      "From the ledger's CONSUMPTION entries over local days `from`..`to` in APP_TIMEZONE (at " +
      "most 366; `from` after `to` is 400), optionally one user's (`userId`) or one team's " +
      "members' since each joined (`teamId`). A team's usage is its members' consumption, in " +
      'any chat. A page of groups (`limit`, `cursor`), with the totals of the whole range.',
    access: { roles: ['ADMIN'] },
  })
  @ApiOkResponse({ type: AdminUsageDto })
  list(@Query() q: AdminUsageQueryDto): Promise<AdminUsageDto> {
    return this.usage.usage(q);
  }
}
