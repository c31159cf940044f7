import { Controller, Get, Req, Res } from '@nestjs/common';
import { ApiQuery, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { ApiRedirect } from '../common/openapi/api-redirect';
import { Endpoint } from '../common/openapi/endpoint.decorator';
import { OAuthFlowService } from '../social/oauth-flow.service';
import { AuthGoogleService } from './auth-google.service';

/** Sign in with Google (spec Authentication 2–3); 404 while Google is not configured. */
@ApiTags('auth')
@Controller('api/auth')
export class AuthGoogleController {
  constructor(
    private readonly flow: OAuthFlowService,
    private readonly google: AuthGoogleService,
  ) {}

  @Get('signin/google')
  @ApiQuery({ name: 'callbackUrl', required: false, description: 'APP_BASE_URL or CORS_ORIGINS' })
  @ApiQuery({ name: 'ref', required: false, description: 'referral code of a sign-up link' })
  @Endpoint({
    summary: 'Start signing in with Google',
    access: 'public',
    database: false,
    errors: [{ status: 404, description: 'Google sign-in is not configured' }],
  })
  @ApiRedirect('To Google, with a state bound to this browser by a cookie')
  signin(@Req() req: Request, @Res() res: Response): Promise<void> {
    return this.flow.signin(this.google, req, res);
  }

  @Get('callback/google')
  @Endpoint({
    summary: 'Finish signing in with Google (OAuth callback)',
    access: 'public',
    errors: [{ status: 404, description: 'Google sign-in is not configured' }],
  })
  @ApiRedirect('Session cookie set, to callbackUrl or /dashboard; else /auth/signin?error=…')
  callback(@Req() req: Request, @Res() res: Response): Promise<void> {
    return this.flow.callback(this.google, req, res);
  }
}
