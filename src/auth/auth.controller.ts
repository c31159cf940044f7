import { Body, Controller, Get, HttpCode, Post, Res, UseGuards } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import {
  ApiBody,
  ApiCreatedResponse,
  ApiExtraModels,
  ApiFoundResponse,
  ApiOkResponse,
  ApiTags,
  getSchemaPath,
} from '@nestjs/swagger';
import type { Response } from 'express';
import { CurrentUser, Public } from '../common/auth/auth.decorators';
import type { SessionUser } from '../common/auth/session-user';
import { ApiErrors } from '../common/openapi/api-errors';
import type { AppConfig } from '../config/app.config';
import { mapUser } from '../users/dto/user.dto';
import type { User } from '../users/user.entity';
import { AuthThrottlerGuard } from './auth-throttler.guard';
import { AuthService } from './auth.service';
import { AuthResultDto, LoginDto, SessionDto, SignupDto } from './dto/auth.dto';
import { LocalAuthGuard } from './local.strategy';
import { MfaChallengeDto } from './two-factor/dto/two-factor.dto';
import { TwoFactorLoginService } from './two-factor/two-factor-login.service';
import { SESSION_COOKIE, sessionCookieOptions } from './session-cookie';

/** Email-and-password sessions in envelope C; the session shapes follow NextAuth's. */
@ApiTags('auth')
@Controller('api/auth')
export class AuthController {
  constructor(
    private readonly auth: AuthService,
    private readonly config: ConfigService<AppConfig, true>,
    private readonly twoFactorLogin: TwoFactorLoginService,
  ) {}

  @Public()
  @Post('signup')
  @UseGuards(AuthThrottlerGuard)
  @ApiCreatedResponse({ type: AuthResultDto })
  @ApiErrors(400, 409, 429)
  async signup(
    @Body() dto: SignupDto,
    @Res({ passthrough: true }) res: Response,
  ): Promise<AuthResultDto> {
    return this.startSession(await this.auth.signup(dto), res);
  }

  @Public()
  @Post('login')
  @HttpCode(200)
  @UseGuards(AuthThrottlerGuard, LocalAuthGuard)
  @ApiBody({ type: LoginDto })
  @ApiExtraModels(AuthResultDto, MfaChallengeDto)
  @ApiOkResponse({
    description:
      'The session `{user, accessToken}` (also the httpOnly cookie); with two-factor on, ' +
      '`{mfaRequired: true, mfaToken}` and no session, for POST /api/auth/2fa/verify',
    schema: { oneOf: [AuthResultDto, MfaChallengeDto].map((m) => ({ $ref: getSchemaPath(m) })) },
  })
  @ApiErrors(401, 429)
  login(
    @CurrentUser() user: unknown,
    @Res({ passthrough: true }) res: Response,
  ): Promise<AuthResultDto | MfaChallengeDto> {
    // LocalAuthGuard put the full User entity on the request.
    return this.twoFactorLogin.login(user as User, res);
  }

  @Public()
  @Post('signout')
  @ApiFoundResponse({ description: 'Clears the session cookie and redirects to /' })
  signout(@Res() res: Response): void {
    res.clearCookie(SESSION_COOKIE, sessionCookieOptions(this.baseUrl)).redirect(302, '/');
  }

  @Public()
  @Get('session')
  @ApiOkResponse({ type: SessionDto, description: '`{}` without a session' })
  session(@CurrentUser() user?: SessionUser): SessionDto {
    if (!user) return {};
    const expires = user.exp ? new Date(user.exp * 1000).toISOString() : undefined;
    return { user: { id: user.id, email: user.email, name: user.name, role: user.role }, expires };
  }

  @Public()
  @Get('providers')
  @ApiOkResponse({
    description: 'Configured sign-in methods keyed by provider id (NextAuth shape)',
  })
  providers(): Record<
    string,
    { id: string; name: string; type: string; signinUrl: string; callbackUrl: string }
  > {
    const base = this.baseUrl;
    const oauth = this.config.get('oauth', { infer: true });
    // A social provider is listed only with both its client id and secret (issue 6).
    const social = (['google', 'github'] as const)
      .filter((id) => oauth[id].clientId && oauth[id].clientSecret)
      .map((id) => ({
        id,
        name: id === 'google' ? 'Google' : 'GitHub',
        type: 'oauth',
        signinUrl: `${base}/api/auth/signin/${id}`,
        callbackUrl: `${base}/api/auth/callback/${id}`,
      }));
    return {
      credentials: {
        id: 'credentials',
        name: 'Credentials',
        type: 'credentials',
        signinUrl: `${base}/api/auth/login`,
        callbackUrl: `${base}/api/auth/callback/credentials`,
      },
      ...Object.fromEntries(social.map((p) => [p.id, p])),
    };
  }

  private get baseUrl(): string {
    return this.config.get('app', { infer: true }).baseUrl;
  }

  private async startSession(user: User, res: Response): Promise<AuthResultDto> {
    const { accessToken } = await this.auth.issueToken(user);
    const maxAge = this.config.get('auth', { infer: true }).sessionMaxAge;
    res.cookie(SESSION_COOKIE, accessToken, sessionCookieOptions(this.baseUrl, maxAge));
    return { user: mapUser(user), accessToken };
  }
}
