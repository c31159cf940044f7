import { Body, Controller, Get, HttpCode, Inject, Post, Req, Res, UseGuards } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { appSettingsConfig } from '../config/app-settings.config';
import { sharedConfig } from '../config/shared.config';
import {
  ApiCreatedResponse,
  ApiExtraModels,
  ApiOkResponse,
  ApiTags,
  getSchemaPath,
} from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { CurrentUser } from '../common/auth/auth.decorators';
import type { SessionUser } from '../common/auth/session-user';
import { ApiRedirect } from '../common/openapi/api-redirect';
import { Endpoint } from '../common/openapi/endpoint.decorator';
import { resolveLocale } from '../i18n/locale';
import { mapUser } from '../users/dto/user.dto';
import type { User } from '../users/user.entity';
import { AuthThrottlerGuard } from './auth-throttler.guard';
import { AuthService } from './auth.service';
import { AuthResultDto, LoginDto, SessionDto, SignupDto } from './dto/auth.dto';
import { LocalAuthGuard } from './local.strategy';
import { MfaChallengeDto } from './two-factor/dto/two-factor.dto';
import { TwoFactorLoginService } from './two-factor/two-factor-login.service';
import { SESSION_COOKIE, sessionCookieOptions } from './session-cookie';
import { SessionsService } from './sessions/sessions.service';

/** Email-and-password sessions in envelope C; the session shapes follow NextAuth's. */
@ApiTags('auth')
@Controller('api/auth')
export class AuthController {
  constructor(
    private readonly auth: AuthService,
    @Inject(appSettingsConfig.KEY)
    private readonly appSettings: ConfigType<typeof appSettingsConfig>,
    @Inject(sharedConfig.KEY) private readonly shared: ConfigType<typeof sharedConfig>,
    private readonly twoFactorLogin: TwoFactorLoginService,
    private readonly sessions: SessionsService,
  ) {}

  @Post('signup')
  @UseGuards(AuthThrottlerGuard)
  @Endpoint({
    summary: 'Sign up with email and password',
    description:
      'Mails a verification link (POST /api/auth/verify-email); the sign-up bonus and ADMIN_EMAILS wait for it.',
    access: 'public',
    errors: [{ status: 409, description: 'The email is taken (`code`: EMAIL_TAKEN)' }, 429],
    body: {
      type: SignupDto,
      example: { email: 'ada@example.com', password: 'correct horse battery', name: 'Ada' },
    },
  })
  @ApiCreatedResponse({ type: AuthResultDto, description: 'Also sets the httpOnly session cookie' })
  async signup(
    @Body() dto: SignupDto,
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
  ): Promise<AuthResultDto> {
    return this.startSession(await this.auth.signup(dto, resolveLocale(req)), res);
  }

  @Post('login')
  @HttpCode(200)
  @UseGuards(AuthThrottlerGuard, LocalAuthGuard)
  @Endpoint({
    summary: 'Sign in with email and password',
    description:
      'With two-factor on, answers `{mfaRequired: true, mfaToken}` and no session: finish with POST /api/auth/2fa/verify.',
    access: 'public',
    errors: [
      { status: 401, description: 'Wrong email or password (`INVALID_CREDENTIALS`)' },
      {
        status: 403,
        description:
          'With REQUIRE_EMAIL_VERIFICATION, the address is not verified yet (`EMAIL_NOT_VERIFIED`)',
      },
      429,
    ],
    body: {
      type: LoginDto,
      example: { email: 'ada@example.com', password: 'correct horse battery' },
    },
  })
  @ApiExtraModels(AuthResultDto, MfaChallengeDto)
  @ApiOkResponse({
    description:
      'The session `{user, accessToken}` (also the httpOnly cookie); with two-factor on, ' +
      '`{mfaRequired: true, mfaToken}` and no session, for POST /api/auth/2fa/verify',
    schema: { oneOf: [AuthResultDto, MfaChallengeDto].map((m) => ({ $ref: getSchemaPath(m) })) },
  })
  login(
    @CurrentUser() user: unknown,
    @Res({ passthrough: true }) res: Response,
  ): Promise<AuthResultDto | MfaChallengeDto> {
    // LocalAuthGuard put the full User entity on the request.
    return this.twoFactorLogin.login(user as User, res);
  }

  @Post('signout')
  @Endpoint({
    summary: 'Sign out: end the current session and clear its cookie',
    description:
      'With a session (cookie or Bearer), ends it on the server: its token is refused by every ' +
      'instance from this answer on. Without one, only clears the cookie.',
    access: 'public',
  })
  @ApiRedirect('Ends the session, clears the session cookie and redirects to /')
  async signout(@CurrentUser() user: SessionUser | undefined, @Res() res: Response): Promise<void> {
    if (user?.sessionId) await this.sessions.signOut(user.id, user.sessionId);
    res.clearCookie(SESSION_COOKIE, sessionCookieOptions(this.baseUrl)).redirect(302, '/');
  }

  @Get('session')
  @Endpoint({ summary: 'The current session', access: 'public' })
  @ApiOkResponse({ type: SessionDto, description: '`{}` without a session' })
  session(@CurrentUser() user?: SessionUser): SessionDto {
    if (!user) return {};
    const expires = user.exp ? new Date(user.exp * 1000).toISOString() : undefined;
    return { user: { id: user.id, email: user.email, name: user.name, role: user.role }, expires };
  }

  private get baseUrl(): string {
    return this.appSettings.baseUrl;
  }

  private async startSession(user: User, res: Response): Promise<AuthResultDto> {
    const { accessToken } = await this.auth.issueToken(user);
    const maxAge = this.shared.sessionMaxAge;
    res.cookie(SESSION_COOKIE, accessToken, sessionCookieOptions(this.baseUrl, maxAge));
    return { user: mapUser(user), accessToken };
  }
}
