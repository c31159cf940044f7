import { Body, Controller, HttpCode, Post, Res, UseGuards } from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiCookieAuth,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import type { Response } from 'express';
import { CurrentUser } from '../common/auth/auth.decorators';
import type { SessionUser } from '../common/auth/session-user';
import { ApiErrors } from '../common/openapi/api-errors';
import { AuthThrottlerGuard } from './auth-throttler.guard';
import { AuthService } from './auth.service';
import { ChangePasswordDto } from './dto/change-password.dto';
import { SessionIssuer } from './session-issuer.service';
import { FreshSessionDto } from './two-factor/dto/two-factor.dto';

/** POST /api/auth/password: change the password; every other session ends (issue 13). */
@ApiTags('auth')
@ApiBearerAuth()
@ApiCookieAuth()
@Controller('api/auth/password')
export class PasswordController {
  constructor(
    private readonly auth: AuthService,
    private readonly sessions: SessionIssuer,
  ) {}

  @Post()
  @HttpCode(200)
  @UseGuards(AuthThrottlerGuard)
  @ApiOperation({ summary: 'Change the password; other sessions end, this one gets a fresh token' })
  @ApiOkResponse({ type: FreshSessionDto, description: 'Also sets a fresh session cookie' })
  @ApiErrors(400, 401, 409, 429)
  async change(
    @CurrentUser() user: SessionUser,
    @Body() dto: ChangePasswordDto,
    @Res({ passthrough: true }) res: Response,
  ): Promise<FreshSessionDto> {
    const updated = await this.auth.changePassword(user.id, dto.currentPassword, dto.newPassword);
    return { accessToken: (await this.sessions.start(updated, res)).accessToken };
  }
}
