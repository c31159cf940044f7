import { Body, Controller, Get, HttpCode, Post, Req, Res, UseGuards } from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiCookieAuth,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { CurrentUser, Public } from '../../common/auth/auth.decorators';
import type { SessionUser } from '../../common/auth/session-user';
import { ApiErrors } from '../../common/openapi/api-errors';
import { AuthThrottlerGuard } from '../auth-throttler.guard';
import { AuthResultDto } from '../dto/auth.dto';
import { SessionIssuer } from '../session-issuer.service';
import {
  DisableTwoFactorDto,
  EnableTwoFactorResultDto,
  FreshSessionDto,
  RecoveryCodesDto,
  TwoFactorCodeDto,
  TwoFactorSetupDto,
  TwoFactorStatusDto,
  VerifyTwoFactorDto,
} from './dto/two-factor.dto';
import { TwoFactorLoginService } from './two-factor-login.service';
import { TwoFactorService } from './two-factor.service';

/** TOTP two-factor authentication (issue 13): enrol, manage, and the second login step. */
@ApiTags('auth')
@Controller('api/auth/2fa')
export class TwoFactorController {
  constructor(
    private readonly twoFactor: TwoFactorService,
    private readonly login: TwoFactorLoginService,
    private readonly sessions: SessionIssuer,
  ) {}

  @Get()
  @ApiBearerAuth()
  @ApiCookieAuth()
  @ApiOperation({ summary: 'Two-factor status: on or off, unused recovery codes' })
  @ApiOkResponse({ type: TwoFactorStatusDto })
  @ApiErrors(401)
  status(@CurrentUser() user: SessionUser): Promise<TwoFactorStatusDto> {
    return this.twoFactor.status(user.id);
  }

  @Post('setup')
  @HttpCode(200)
  @ApiBearerAuth()
  @ApiCookieAuth()
  @ApiOperation({
    summary: 'Start enrolment: a new pending TOTP secret, its otpauth URI and QR code',
  })
  @ApiOkResponse({ type: TwoFactorSetupDto })
  @ApiErrors(401, 409)
  setup(@CurrentUser() user: SessionUser): Promise<TwoFactorSetupDto> {
    return this.twoFactor.setup(user);
  }

  @Post('enable')
  @HttpCode(200)
  @ApiBearerAuth()
  @ApiCookieAuth()
  @ApiOperation({
    summary:
      'Confirm the pending secret with a code: 2FA on, 10 recovery codes, other sessions end',
  })
  @ApiOkResponse({
    type: EnableTwoFactorResultDto,
    description: 'Also sets a fresh session cookie',
  })
  @ApiErrors(400, 401, 409, 429)
  async enable(
    @CurrentUser() user: SessionUser,
    @Body() dto: TwoFactorCodeDto,
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
  ): Promise<EnableTwoFactorResultDto> {
    const done = await this.twoFactor.enable(user.id, req.ip, dto.code);
    const { accessToken } = await this.sessions.start(done.user, res);
    return { recoveryCodes: done.recoveryCodes, accessToken };
  }

  @Post('recovery-codes')
  @HttpCode(200)
  @ApiBearerAuth()
  @ApiCookieAuth()
  @ApiOperation({ summary: 'Replace the recovery codes (the old set stops working)' })
  @ApiOkResponse({ type: RecoveryCodesDto })
  @ApiErrors(400, 401, 409, 429)
  async recoveryCodes(
    @CurrentUser() user: SessionUser,
    @Body() dto: TwoFactorCodeDto,
    @Req() req: Request,
  ): Promise<RecoveryCodesDto> {
    return {
      recoveryCodes: await this.twoFactor.regenerateRecoveryCodes(user.id, req.ip, dto.code),
    };
  }

  @Post('disable')
  @HttpCode(200)
  @ApiBearerAuth()
  @ApiCookieAuth()
  @ApiOperation({
    summary: 'Turn 2FA off with a code (and the password, if any); other sessions end',
  })
  @ApiOkResponse({ type: FreshSessionDto, description: 'Also sets a fresh session cookie' })
  @ApiErrors(400, 401, 409, 429)
  async disable(
    @CurrentUser() user: SessionUser,
    @Body() dto: DisableTwoFactorDto,
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
  ): Promise<FreshSessionDto> {
    const updated = await this.twoFactor.disable(user.id, req.ip, dto);
    return { accessToken: (await this.sessions.start(updated, res)).accessToken };
  }

  @Public()
  @Post('verify')
  @HttpCode(200)
  @UseGuards(AuthThrottlerGuard)
  @ApiOperation({
    summary: 'Second login step: mfaToken and a TOTP or recovery code → the session',
    security: [],
  })
  @ApiOkResponse({ type: AuthResultDto, description: 'Also sets the httpOnly session cookie' })
  @ApiErrors(400, 401, 429)
  verify(
    @Body() dto: VerifyTwoFactorDto,
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
  ): Promise<AuthResultDto> {
    const proof = { code: dto.code, recoveryCode: dto.recoveryCode };
    return this.login.verify(dto.mfaToken, proof, req.ip, res);
  }
}
