import { Controller, Get, Req, Res } from '@nestjs/common';
import { ApiQuery, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { ApiRedirect } from '../common/openapi/api-redirect';
import { Endpoint } from '../common/openapi/endpoint.decorator';
import { OAuthFlowService } from '../social/oauth-flow.service';
import { AuthGithubService } from './auth-github.service';

/** Sign in with GitHub (spec Authentication 2–3); 404 while GitHub is not configured. */
@ApiTags('auth')
@Controller('api/auth')
export class AuthGithubController {
  constructor(
    private readonly flow: OAuthFlowService,
    private readonly github: AuthGithubService,
  ) {}

  @Get('signin/github')
  @ApiQuery({ name: 'callbackUrl', required: false, description: 'APP_BASE_URL or CORS_ORIGINS' })
  @ApiQuery({ name: 'ref', required: false, description: 'referral code of a sign-up link' })
  @Endpoint({
    summary: 'Start signing in with GitHub',
    access: 'public',
    database: false,
    errors: [{ status: 404, description: 'GitHub sign-in is not configured' }],
  })
  @ApiRedirect('To GitHub, with a state bound to this browser by a cookie')
  signin(@Req() req: Request, @Res() res: Response): Promise<void> {
    return this.flow.signin(this.github, req, res);
  }

  @Get('callback/github')
  @Endpoint({
    summary: 'Finish signing in with GitHub (OAuth callback)',
    access: 'public',
    errors: [{ status: 404, description: 'GitHub sign-in is not configured' }],
  })
  @ApiRedirect('Session cookie set, to callbackUrl or /dashboard; else /auth/signin?error=…')
  callback(@Req() req: Request, @Res() res: Response): Promise<void> {
    return this.flow.callback(this.github, req, res);
  }
}
