import { Controller, Get, Req } from '@nestjs/common';
import { ApiOkResponse, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { CurrentUser } from '../common/auth/auth.decorators';
import type { SessionUser } from '../common/auth/session-user';
import { Endpoint } from '../common/openapi/endpoint.decorator';
import { resolveLocale } from '../i18n/locale';
import { ReferralOverviewDto } from './dto/referral.dto';
import { ReferralsService } from './referrals.service';

/** My referral code, link and rewards (envelope C, like the credits routes). */
@ApiTags('referrals')
@Controller('api/referrals')
export class ReferralsController {
  constructor(private readonly referrals: ReferralsService) {}

  @Get()
  @Endpoint({ summary: 'My referral code, link and rewards', access: 'session' })
  @ApiOkResponse({ type: ReferralOverviewDto })
  overview(@CurrentUser() user: SessionUser, @Req() req: Request): Promise<ReferralOverviewDto> {
    return this.referrals.overview(user.id, resolveLocale(req));
  }
}
