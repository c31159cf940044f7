import { Body, Controller, HttpCode, Post, Req } from '@nestjs/common';
import { ApiOkResponse, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { CurrentUser } from '../common/auth/auth.decorators';
import type { SessionUser } from '../common/auth/session-user';
import { Endpoint } from '../common/openapi/endpoint.decorator';
import { RedeemCodeDto, RedemptionResultDto } from './dto/redeem.dto';
import { RedemptionService } from './redemption.service';

/** Redeeming a code for credits (envelope C, as the other /api/credits routes). */
@ApiTags('credits')
@Controller('api/credits')
export class RedemptionController {
  constructor(private readonly redemption: RedemptionService) {}

  @Post('redeem')
  @HttpCode(200)
  @Endpoint({
    summary: 'Redeem a code for credits',
    description:
      "Grants the code's credits as a REDEMPTION ledger entry. Limited to REDEEM_RATE_PER_HOUR " +
      'attempts per user and per client address. See docs/redemption-codes.md.',
    access: 'session',
    errors: [
      {
        status: 404,
        description: 'Unknown, used up, or of a disabled batch: one answer (`code`: CODE_INVALID)',
      },
      { status: 409, description: 'You redeemed this code already (`CODE_ALREADY_REDEEMED`)' },
      { status: 410, description: 'The code has expired (`code`: CODE_EXPIRED)' },
      { status: 429, description: 'Too many attempts (`code`: RATE_LIMITED), see Retry-After' },
    ],
    body: { type: RedeemCodeDto, example: { code: 'K7QX-3M9T-VW2R-8HJP-4NDC' } },
  })
  @ApiOkResponse({ type: RedemptionResultDto })
  redeem(
    @CurrentUser() user: SessionUser,
    @Body() dto: RedeemCodeDto,
    @Req() req: Request,
  ): Promise<RedemptionResultDto> {
    return this.redemption.redeem(user.id, dto.code, req.ip ?? 'unknown');
  }
}
