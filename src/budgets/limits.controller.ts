import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { CurrentUser } from '../common/auth/auth.decorators';
import type { SessionUser } from '../common/auth/session-user';
import { Endpoint } from '../common/openapi/endpoint.decorator';
import { BudgetLimitsService, type Limit } from './budget-limits.service';
import { KeyInfoDto, LimitsDto } from './dto/limits.dto';

const RESET: Record<Limit['window'], string> = {
  day: 'daily',
  week: 'weekly',
  month: 'monthly',
  hours: 'hours',
  total: 'never',
};

/** What is left: GET /api/credits/limits (envelope C). */
@ApiTags('credits')
@Controller('api/credits/limits')
export class LimitsController {
  constructor(private readonly limits: BudgetLimitsService) {}

  @Get()
  @Endpoint({
    summary: 'Every window that applies to me, and what is left in it',
    description:
      "My user budget, the budgets of my teams and my member caps there, then the plan's " +
      'daily limit (scope `plan`): used, held, remaining, `resetsAt` and the pace (the ' +
      "window's projected total at the current rate). Changes nothing.",
    access: 'session',
    scope: 'credits:read',
  })
  @ApiOkResponse({ type: LimitsDto })
  async mine(@CurrentUser() user: SessionUser): Promise<LimitsDto> {
    return { data: await this.limits.forCaller(user.id) };
  }
}

/** GET /v1/key: the API key's usage and limits in OpenRouter's key shape. */
@ApiTags('openai-compatible')
@Controller('v1/key')
export class KeyInfoController {
  constructor(private readonly limits: BudgetLimitsService) {}

  @Get()
  @Endpoint({
    summary: "The calling API key's usage and limits (OpenRouter's key shape)",
    description:
      '`data.{label, usage, limit, limit_remaining, usage_daily, usage_weekly, usage_monthly}` ' +
      "as OpenRouter's `GET /api/v1/key` answers, in credits, plus `windows` (the key's budget " +
      "windows, then its user's). Free; changes nothing. 403 with a session instead of a key.",
    access: 'session',
    scope: 'ai',
  })
  @ApiOkResponse({ type: KeyInfoDto })
  async key(@CurrentUser() user: SessionUser): Promise<KeyInfoDto> {
    const info = await this.limits.forKey(user);
    const t = info.tightest;
    return {
      data: {
        label: info.label,
        usage: info.usage.total,
        usage_daily: info.usage.day,
        usage_weekly: info.usage.week,
        usage_monthly: info.usage.month,
        limit: t ? t.limit : null,
        limit_remaining: t ? t.remaining : null,
        limit_reset: t ? RESET[t.window] : null,
        is_free_tier: false,
        windows: info.windows,
      },
    };
  }
}
