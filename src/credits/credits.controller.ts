import { Controller, Get, Query } from '@nestjs/common';
import { ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { CurrentUser } from '../common/auth/auth.decorators';
import type { SessionUser } from '../common/auth/session-user';
import { Endpoint } from '../common/openapi/endpoint.decorator';
import { LedgerQueryDto } from './dto/ledger-query.dto';
import { CreditsUsageService } from './credits-usage.service';
import { CreditsService } from './credits.service';
import { CreditSummaryDto, LedgerPageDto } from './dto/credits.dto';

/** The session user's balance, daily usage and ledger (envelope C). */
@ApiTags('credits')
@Controller('api/credits')
export class CreditsController {
  constructor(
    private readonly usage: CreditsUsageService,
    private readonly credits: CreditsService,
  ) {}

  @Get()
  @Endpoint({ summary: 'My balance and daily usage', access: 'session', scope: 'credits:read' })
  @ApiOkResponse({ type: CreditSummaryDto })
  summary(@CurrentUser() user: SessionUser): Promise<CreditSummaryDto> {
    return this.usage.summary(user.id);
  }

  @Get('transactions')
  @Endpoint({
    summary: 'My credit ledger, newest first',
    access: 'session',
    scope: 'credits:read',
  })
  @ApiOkResponse({ type: LedgerPageDto })
  transactions(
    @CurrentUser() user: SessionUser,
    @Query() q: LedgerQueryDto,
  ): Promise<LedgerPageDto> {
    return this.credits.listTransactions(user.id, q.limit, q.cursor, q.keyId);
  }
}
