import { Controller, Get } from '@nestjs/common';
import { ApiBearerAuth, ApiCookieAuth, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { CurrentUser } from '../common/auth/auth.decorators';
import type { SessionUser } from '../common/auth/session-user';
import { ApiErrors } from '../common/openapi/api-errors';

/** GET /api/protected → 200 `{message}` with a session, 401 `{error}` without (spec). */
@ApiTags('auth')
@ApiBearerAuth()
@ApiCookieAuth()
@Controller('api/protected')
export class ProtectedController {
  @Get()
  @ApiOkResponse({ schema: { properties: { message: { type: 'string' } } } })
  @ApiErrors(401)
  get(@CurrentUser() user: SessionUser): { message: string } {
    return { message: `You are signed in as ${user.email}` };
  }
}
