import { Body, Controller, HttpCode, Post, Req, UseGuards } from '@nestjs/common';
import { ApiAcceptedResponse, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { Endpoint } from '../../common/openapi/endpoint.decorator';
import { resolveLocale } from '../../i18n/locale';
import { AuthThrottlerGuard } from '../auth-throttler.guard';
import {
  AcceptedDto,
  ForgotPasswordDto,
  PasswordResetDto,
  ResetPasswordDto,
} from './dto/account.dto';
import { PasswordResetService } from './password-reset.service';

/** Password reset by mail: ask for a link, then set a new password with its token. */
@ApiTags('auth')
@Controller('api/auth/password')
export class PasswordResetController {
  constructor(private readonly reset: PasswordResetService) {}

  @Post('forgot')
  @HttpCode(202)
  @UseGuards(AuthThrottlerGuard)
  @Endpoint({
    summary: 'Mail a password reset link',
    description:
      'Answers 202 whether or not the address has an account, in the same time: the lookup and the mail happen in a job. The link works once, for 1 hour.',
    access: 'public',
    errors: [
      { status: 429, description: 'Too many requests for this address or from this client' },
    ],
    body: { type: ForgotPasswordDto, example: { email: 'ada@example.com' } },
  })
  @ApiAcceptedResponse({ type: AcceptedDto })
  async forgot(@Body() dto: ForgotPasswordDto, @Req() req: Request): Promise<AcceptedDto> {
    await this.reset.requestReset(dto.email, resolveLocale(req));
    return { accepted: true };
  }

  @Post('reset')
  @HttpCode(200)
  @UseGuards(AuthThrottlerGuard)
  @Endpoint({
    summary: 'Set a new password with the token of the reset link',
    description:
      'Every session of the account ends, and so does every other mailed link (a pending email change included); the API keys are revoked unless `revokeKeys` is false; a notice says what ended. Two-factor stays on for a verified address. An address proven for the first time by the reset changes hands: its API keys, second factor, chats, tasks, team memberships and preferences go.',
    access: 'public',
    errors: [
      { status: 400, description: 'The link is unknown, used or expired (`INVALID_TOKEN`)' },
      429,
    ],
    body: {
      type: ResetPasswordDto,
      example: {
        token: 'Jq3v0cX2bq1mQm2yJ8m0Fh5Wm6yq3Yp7N1r0sT2uV4w',
        password: 'staple battery horse correct',
      },
    },
  })
  @ApiOkResponse({ type: PasswordResetDto })
  async resetPassword(
    @Body() dto: ResetPasswordDto,
    @Req() req: Request,
  ): Promise<PasswordResetDto> {
    await this.reset.reset(dto.token, dto.password, {
      revokeKeys: dto.revokeKeys,
      locale: resolveLocale(req),
    });
    return { reset: true };
  }
}
