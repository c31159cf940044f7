import { Body, Controller, Delete, Get, Param, ParseUUIDPipe, Put, Query } from '@nestjs/common';
import { ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { CurrentUser } from '../common/auth/auth.decorators';
import type { SessionUser } from '../common/auth/session-user';
import { Endpoint } from '../common/openapi/endpoint.decorator';
import { BudgetLimitsService } from './budget-limits.service';
import { BudgetsService } from './budgets.service';
import { BudgetDto, DeletedBudgetDto, SetBudgetDto, toBudgetDto } from './dto/budget.dto';
import { LimitsDto, NearLimitQueryDto } from './dto/limits.dto';

const EXAMPLE: SetBudgetDto = {
  scope: 'key',
  keyId: '0b6c1f3e-4a59-4d6b-9a51-2f8d7c3e9a10',
  timezone: 'Asia/Shanghai',
  thresholds: [80],
  windows: [
    { window: 'hours', hours: 5, limit: 2000 },
    { window: 'day', limit: 5000 },
    { window: 'month', limit: 50000 },
  ],
};

/** Budgets of users, keys, teams and members (envelope C). */
@ApiTags('budgets')
@Controller('api/budgets')
export class BudgetsController {
  constructor(private readonly budgets: BudgetsService) {}

  @Put()
  @Endpoint({
    summary: 'Create or replace a budget',
    description:
      'One budget per scope and owner: `user` (yourself; admins anyone), `key` (your key), ' +
      '`team` and `member` (owners and admins of the team). Windows kept by kind keep their ' +
      'usage. See docs/budgets.md.',
    access: 'session',
    body: { type: SetBudgetDto, example: EXAMPLE },
    errors: [{ status: 404, description: 'An admin named no such user, team or key' }],
  })
  @ApiOkResponse({ type: BudgetDto })
  async set(@CurrentUser() user: SessionUser, @Body() dto: SetBudgetDto): Promise<BudgetDto> {
    return toBudgetDto(await this.budgets.set(user, dto));
  }

  @Get()
  @Endpoint({
    summary: 'Budgets I set or am capped by',
    description: "Mine, my keys', and those of the teams I own or administer.",
    access: 'session',
  })
  @ApiOkResponse({ type: BudgetDto, isArray: true })
  async list(@CurrentUser() user: SessionUser): Promise<BudgetDto[]> {
    return (await this.budgets.list(user)).map(toBudgetDto);
  }

  @Delete(':id')
  @Endpoint({
    summary: 'Delete a budget',
    access: 'session',
    errors: [{ status: 404, description: 'No such budget' }],
  })
  @ApiOkResponse({ type: DeletedBudgetDto })
  async remove(
    @CurrentUser() user: SessionUser,
    @Param('id', ParseUUIDPipe) id: string,
  ): Promise<DeletedBudgetDto> {
    await this.budgets.remove(user, id);
    return { id, deleted: true };
  }
}

/** Admins: who is near a limit (envelope C). */
@ApiTags('admin')
@Controller('api/admin/budgets')
export class AdminBudgetsController {
  constructor(private readonly limits: BudgetLimitsService) {}

  @Get('near-limit')
  @Endpoint({
    summary: 'Budget windows near their limit (admin)',
    description: 'Windows whose used + held is at least `ratio` of the limit, fullest first.',
    access: { roles: ['ADMIN'] },
  })
  @ApiOkResponse({ type: LimitsDto })
  async near(@Query() q: NearLimitQueryDto): Promise<LimitsDto> {
    return { data: await this.limits.nearLimit(q.ratio ?? 0.8, q.limit ?? 50) };
  }
}
