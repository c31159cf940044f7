import { Body, Controller, Get, HttpCode, Post, Req, Res, UseGuards } from '@nestjs/common';
import { ApiOkResponse, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { CurrentUser } from '../../common/auth/auth.decorators';
import type { SessionUser } from '../../common/auth/session-user';
import { Endpoint } from '../../common/openapi/endpoint.decorator';
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

/** TOTP two-factor authentication: enrol, manage, and the second login step. */
@ApiTags('auth')
@Controller('api/auth/2fa')
export class TwoFactorController {
  constructor(
    private readonly twoFactor: TwoFactorService,
    private readonly login: TwoFactorLoginService,
    private readonly sessions: SessionIssuer,
  ) {}

  @Get()
  @Endpoint({ summary: 'Two-factor status: on or off, unused recovery codes', access: 'session' })
  @ApiOkResponse({ type: TwoFactorStatusDto })
  status(@CurrentUser() user: SessionUser): Promise<TwoFactorStatusDto> {
    return this.twoFactor.status(user.id);
  }

  @Post('setup')
  @HttpCode(200)
  @Endpoint({
    summary: 'Start enrolment: a new pending TOTP secret, its otpauth URI and QR code',
    access: 'session',
    errors: [
      { status: 409, description: 'Two-factor is already on (`TWO_FACTOR_ALREADY_ENABLED`)' },
    ],
  })
  @ApiOkResponse({ type: TwoFactorSetupDto })
  setup(@CurrentUser() user: SessionUser): Promise<TwoFactorSetupDto> {
    return this.twoFactor.setup(user);
  }

  @Post('enable')
  @HttpCode(200)
  @Endpoint({
    summary:
      'Confirm the pending secret with a code: 2FA on, 10 recovery codes, other sessions end',
    access: 'session',
    errors: [
      { status: 401, description: 'Wrong or replayed code (`TWO_FACTOR_CODE_INVALID`)' },
      { status: 409, description: 'No pending secret, or already on' },
      { status: 429, description: 'Too many failed codes (`Retry-After`)' },
    ],
    body: { type: TwoFactorCodeDto, example: { code: '492039' } },
  })
  @ApiOkResponse({
    type: EnableTwoFactorResultDto,
    description: 'Also sets a fresh session cookie',
  })
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
  @Endpoint({
    summary: 'Replace the recovery codes (the old set stops working)',
    access: 'session',
    errors: [
      { status: 401, description: 'Wrong or replayed code (`TWO_FACTOR_CODE_INVALID`)' },
      { status: 409, description: 'Two-factor is off' },
      { status: 429, description: 'Too many failed codes (`Retry-After`)' },
    ],
    body: { type: TwoFactorCodeDto, example: { code: '492039' } },
  })
  @ApiOkResponse({ type: RecoveryCodesDto })
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
  @Endpoint({
    summary: 'Turn 2FA off with a code (and the password, if any); other sessions end',
    access: 'session',
    errors: [
      {
        status: 401,
        description: 'Wrong code (`TWO_FACTOR_CODE_INVALID`) or password (`INVALID_CREDENTIALS`)',
      },
      { status: 409, description: 'Two-factor is off' },
      { status: 429, description: 'Too many failed codes (`Retry-After`)' },
    ],
    body: {
      type: DisableTwoFactorDto,
      example: { password: 'correct horse battery', code: '492039' },
    },
  })
  @ApiOkResponse({ type: FreshSessionDto, description: 'Also sets a fresh session cookie' })
  async disable(
    @CurrentUser() user: SessionUser,
    @Body() dto: DisableTwoFactorDto,
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
  ): Promise<FreshSessionDto> {
    const updated = await this.twoFactor.disable(user.id, req.ip, dto);
    return { accessToken: (await this.sessions.start(updated, res)).accessToken };
  }

  @Post('verify')
  @HttpCode(200)
  @UseGuards(AuthThrottlerGuard)
  @Endpoint({
    summary: 'Second login step: mfaToken and a TOTP or recovery code → the session',
    access: 'public',
    errors: [
      { status: 401, description: 'Wrong, replayed or used code, or an expired mfaToken' },
      { status: 429, description: 'Too many failed codes (`Retry-After`)' },
    ],
    body: {
      type: VerifyTwoFactorDto,
      example: { mfaToken: 'eyJhbGciOiJIUzI1NiJ9.eyJ0eXAiOiJtZmEifQ.c2lnbmF0dXJl', code: '492039' },
    },
  })
  @ApiOkResponse({ type: AuthResultDto, description: 'Also sets the httpOnly session cookie' })
  verify(
    @Body() dto: VerifyTwoFactorDto,
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
  ): Promise<AuthResultDto> {
    const proof = { code: dto.code, recoveryCode: dto.recoveryCode };
    return this.login.verify(dto.mfaToken, proof, req.ip, res);
  }
}
