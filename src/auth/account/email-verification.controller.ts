import { Body, Controller, HttpCode, Post, Req, UseGuards } from '@nestjs/common';
import { ApiAcceptedResponse, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { CurrentUser } from '../../common/auth/auth.decorators';
import type { SessionUser } from '../../common/auth/session-user';
import { Endpoint } from '../../common/openapi/endpoint.decorator';
import { resolveLocale } from '../../i18n/locale';
import { mapUser, ProfileDto } from '../../users/dto/user.dto';
import { AuthThrottlerGuard } from '../auth-throttler.guard';
import { AcceptedDto, LinkTokenDto } from './dto/account.dto';
import { EmailVerificationService } from './email-verification.service';

const INVALID_TOKEN = {
  status: 400,
  description: 'The link is unknown, used or expired (`INVALID_TOKEN`)',
};

/** Email verification: follow the mailed link, or ask for a new one. */
@ApiTags('auth')
@Controller('api/auth/verify-email')
export class EmailVerificationController {
  constructor(private readonly verification: EmailVerificationService) {}

  @Post()
  @HttpCode(200)
  @UseGuards(AuthThrottlerGuard)
  @Endpoint({
    summary: 'Verify the email address with the token of the mailed link',
    description:
      'Single use, 24 h. Grants what a proven address unlocks, once: the sign-up bonus, a referred user’s bonus, and role ADMIN for an address in ADMIN_EMAILS. The first proof of an address also revokes the account’s API keys, turns two-factor off and ends its other mailed links (whoever created the account need not own the address); a mail says what went.',
    access: 'public',
    errors: [INVALID_TOKEN, 429],
    body: { type: LinkTokenDto, example: { token: 'Jq3v0cX2bq1mQm2yJ8m0Fh5Wm6yq3Yp7N1r0sT2uV4w' } },
  })
  @ApiOkResponse({ type: ProfileDto, description: 'The verified user' })
  async verify(@Body() dto: LinkTokenDto, @Req() req: Request): Promise<ProfileDto> {
    return { user: mapUser(await this.verification.verify(dto.token, resolveLocale(req))) };
  }

  @Post('resend')
  @HttpCode(202)
  @UseGuards(AuthThrottlerGuard)
  @Endpoint({
    summary: 'Mail a new verification link to my address',
    description:
      'Earlier links stop working. Nothing is sent when the address is verified already.',
    access: 'session',
    errors: [{ status: 429, description: 'Too many requests from this user or address' }],
  })
  @ApiAcceptedResponse({ type: AcceptedDto })
  async resend(@CurrentUser() user: SessionUser, @Req() req: Request): Promise<AcceptedDto> {
    await this.verification.resend(user.id, resolveLocale(req));
    return { accepted: true };
  }
}
