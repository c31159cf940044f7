import { Body, Controller, HttpCode, Post, Req, UseGuards } from '@nestjs/common';
import { ApiAcceptedResponse, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { CurrentUser } from '../../common/auth/auth.decorators';
import type { SessionUser } from '../../common/auth/session-user';
import { Endpoint } from '../../common/openapi/endpoint.decorator';
import { resolveLocale } from '../../i18n/locale';
import { mapUser, ProfileDto } from '../../users/dto/user.dto';
import { AuthThrottlerGuard } from '../auth-throttler.guard';
import { AcceptedDto, ChangeEmailDto, LinkTokenDto } from './dto/account.dto';
import { EmailChangeService } from './email-change.service';

/** Changing my email address: request (mails both addresses), then confirm from the new one. */
@ApiTags('users')
@Controller('api/user/email')
export class EmailChangeController {
  constructor(private readonly emailChange: EmailChangeService) {}

  @Post()
  @HttpCode(202)
  @UseGuards(AuthThrottlerGuard)
  @Endpoint({
    summary: 'Ask to change my email address',
    description:
      'Mails a confirmation link (24 h, single use) to the new address and a notice to the current one. Nothing changes until the link is followed; a taken address is told only then. Only a verified account may ask, at most EMAIL_CHANGE_PER_DAY times in 24 hours; the mail to the new address carries no display name.',
    access: 'session',
    errors: [
      {
        status: 401,
        description:
          'Wrong password (`INVALID_CREDENTIALS`) or TOTP code (`TWO_FACTOR_CODE_INVALID`)',
      },
      {
        status: 403,
        description: 'The current address was never verified (`EMAIL_NOT_VERIFIED`)',
      },
      {
        status: 409,
        description:
          'An account without a password needs two-factor on to prove itself (`TWO_FACTOR_NOT_ENABLED`)',
      },
      {
        status: 429,
        description:
          'Too many attempts (`RATE_LIMITED`), or EMAIL_CHANGE_PER_DAY requests in the last 24 hours (`EMAIL_CHANGE_LIMIT_REACHED`)',
      },
    ],
    body: {
      type: ChangeEmailDto,
      example: { newEmail: 'ada@new.example.com', password: 'correct horse battery' },
    },
  })
  @ApiAcceptedResponse({ type: AcceptedDto })
  async request(
    @CurrentUser() user: SessionUser,
    @Body() dto: ChangeEmailDto,
    @Req() req: Request,
  ): Promise<AcceptedDto> {
    await this.emailChange.request(
      user.id,
      dto.newEmail,
      { password: dto.password, totpCode: dto.totpCode },
      { ip: req.ip, locale: resolveLocale(req) },
    );
    return { accepted: true };
  }

  @Post('confirm')
  @HttpCode(200)
  @UseGuards(AuthThrottlerGuard)
  @Endpoint({
    summary: 'Confirm the new email address with the token of the mailed link',
    access: 'public',
    errors: [
      {
        status: 400,
        description:
          'The link is unknown, used, expired, or older than the account’s last credential change (`INVALID_TOKEN`)',
      },
      { status: 409, description: 'Another account has this address now (`EMAIL_TAKEN`)' },
      429,
    ],
    body: { type: LinkTokenDto, example: { token: 'Jq3v0cX2bq1mQm2yJ8m0Fh5Wm6yq3Yp7N1r0sT2uV4w' } },
  })
  @ApiOkResponse({ type: ProfileDto, description: 'The user with the new address' })
  async confirm(@Body() dto: LinkTokenDto): Promise<ProfileDto> {
    return { user: mapUser(await this.emailChange.confirm(dto.token)) };
  }
}
