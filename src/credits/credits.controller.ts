import { Controller, Get, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiCookieAuth, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { CurrentUser } from '../common/auth/auth.decorators';
import type { SessionUser } from '../common/auth/session-user';
import { ApiErrors } from '../common/openapi/api-errors';
import { PageQueryDto } from '../common/pagination/pagination';
import { CreditsUsageService, type CreditSummary } from './credits-usage.service';
import { CreditsService, type LedgerEntry } from './credits.service';

/** The session user's balance, daily usage and ledger (envelope C). */
@ApiTags('credits')
@ApiBearerAuth()
@ApiCookieAuth()
@Controller('api/credits')
export class CreditsController {
  constructor(
    private readonly usage: CreditsUsageService,
    private readonly credits: CreditsService,
  ) {}

  @Get()
  @ApiOkResponse({ description: '{balance, plan, dailyLimit, usedToday, heldCredits, resetsAt}' })
  @ApiErrors(401)
  summary(@CurrentUser() user: SessionUser): Promise<CreditSummary> {
    return this.usage.summary(user.id);
  }

  @Get('transactions')
  @ApiOkResponse({
    description: '{data: [{id, amount, type, description, createdAt}], nextCursor}, newest first',
  })
  @ApiErrors(400, 401)
  transactions(
    @CurrentUser() user: SessionUser,
    @Query() q: PageQueryDto,
  ): Promise<{ data: LedgerEntry[]; nextCursor: string | null }> {
    return this.credits.listTransactions(user.id, q.limit, q.cursor);
  }
}
