import { Body, Controller, HttpCode, Post, Res, UseGuards } from '@nestjs/common';
import { ApiOkResponse, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { CurrentUser } from '../common/auth/auth.decorators';
import type { SessionUser } from '../common/auth/session-user';
import { Endpoint } from '../common/openapi/endpoint.decorator';
import { AuthThrottlerGuard } from './auth-throttler.guard';
import { AuthService } from './auth.service';
import { ChangePasswordDto } from './dto/change-password.dto';
import { SessionIssuer } from './session-issuer.service';
import { FreshSessionDto } from './two-factor/dto/two-factor.dto';

/** POST /api/auth/password: change the password; every other session ends. */
@ApiTags('auth')
@Controller('api/auth/password')
export class PasswordController {
  constructor(
    private readonly auth: AuthService,
    private readonly sessions: SessionIssuer,
  ) {}

  @Post()
  @HttpCode(200)
  @UseGuards(AuthThrottlerGuard)
  @Endpoint({
    summary: 'Change the password; other sessions end, this one gets a fresh token',
    description:
      'Every unused mailed link of the account ends too (a pending email change included); `revokeKeys: true` also revokes every API key.',
    access: 'session',
    errors: [
      { status: 401, description: 'The current password is wrong (`INVALID_CREDENTIALS`)' },
      { status: 409, description: 'A social-only account has no password (`PASSWORD_NOT_SET`)' },
      429,
    ],
    body: {
      type: ChangePasswordDto,
      example: { currentPassword: 'correct horse battery', newPassword: 'staple battery horse 2' },
    },
  })
  @ApiOkResponse({ type: FreshSessionDto, description: 'Also sets a fresh session cookie' })
  async change(
    @CurrentUser() user: SessionUser,
    @Body() dto: ChangePasswordDto,
    @Res({ passthrough: true }) res: Response,
  ): Promise<FreshSessionDto> {
    const updated = await this.auth.changePassword(user.id, dto.currentPassword, dto.newPassword, {
      revokeKeys: dto.revokeKeys ?? false,
    });
    return { accessToken: (await this.sessions.start(updated, res)).accessToken };
  }
}
