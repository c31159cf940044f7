import { Controller, Get, Req, Res } from '@nestjs/common';
import { ApiFoundResponse, ApiQuery, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { Public } from '../common/auth/auth.decorators';
import { ApiErrors } from '../common/openapi/api-errors';
import { OAuthFlowService } from '../social/oauth-flow.service';
import { AuthGithubService } from './auth-github.service';

/** Sign in with GitHub (spec Authentication 2–3); 404 while GitHub is not configured. */
@ApiTags('auth')
@Public()
@Controller('api/auth')
export class AuthGithubController {
  constructor(
    private readonly flow: OAuthFlowService,
    private readonly github: AuthGithubService,
  ) {}

  @Get('signin/github')
  @ApiQuery({ name: 'callbackUrl', required: false, description: 'APP_BASE_URL or CORS_ORIGINS' })
  @ApiFoundResponse({ description: 'To GitHub, with a state bound to this browser by a cookie' })
  @ApiErrors(404)
  signin(@Req() req: Request, @Res() res: Response): Promise<void> {
    return this.flow.signin(this.github, req, res);
  }

  @Get('callback/github')
  @ApiFoundResponse({
    description: 'Session cookie set, to callbackUrl or /dashboard; else /auth/signin?error=…',
  })
  @ApiErrors(404)
  callback(@Req() req: Request, @Res() res: Response): Promise<void> {
    return this.flow.callback(this.github, req, res);
  }
}
