import { Controller, Get, Req, Res } from '@nestjs/common';
import { ApiFoundResponse, ApiQuery, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { Public } from '../common/auth/auth.decorators';
import { ApiErrors } from '../common/openapi/api-errors';
import { OAuthFlowService } from '../social/oauth-flow.service';
import { AuthGoogleService } from './auth-google.service';

/** Sign in with Google (spec Authentication 2–3); 404 while Google is not configured. */
@ApiTags('auth')
@Public()
@Controller('api/auth')
export class AuthGoogleController {
  constructor(
    private readonly flow: OAuthFlowService,
    private readonly google: AuthGoogleService,
  ) {}

  @Get('signin/google')
  @ApiQuery({ name: 'callbackUrl', required: false, description: 'APP_BASE_URL or CORS_ORIGINS' })
  @ApiFoundResponse({ description: 'To Google, with a state bound to this browser by a cookie' })
  @ApiErrors(404)
  signin(@Req() req: Request, @Res() res: Response): Promise<void> {
    return this.flow.signin(this.google, req, res);
  }

  @Get('callback/google')
  @ApiFoundResponse({
    description: 'Session cookie set, to callbackUrl or /dashboard; else /auth/signin?error=…',
  })
  @ApiErrors(404)
  callback(@Req() req: Request, @Res() res: Response): Promise<void> {
    return this.flow.callback(this.google, req, res);
  }
}
