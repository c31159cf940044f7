import { Controller, Delete, Get, Param, ParseUUIDPipe } from '@nestjs/common';
import { ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { CurrentUser } from '../../common/auth/auth.decorators';
import type { SessionUser } from '../../common/auth/session-user';
import { Endpoint } from '../../common/openapi/endpoint.decorator';
import { EndedSessionsDto, SessionListDto } from './dto/sessions.dto';
import { SessionsService } from './sessions.service';

/**
 * My sign-ins (envelope C). Session only: an API key can neither see nor end sessions (403
 * INSUFFICIENT_SCOPE). An ended session's token is refused by every instance from the moment
 * the ending call answers.
 */
@ApiTags('auth')
@Controller('api/auth/sessions')
export class SessionsController {
  constructor(private readonly sessions: SessionsService) {}

  @Get()
  @Endpoint({
    summary: 'List my sessions (the current one marked, ended ones until they expire)',
    access: 'session',
  })
  @ApiOkResponse({ type: SessionListDto })
  async list(@CurrentUser() user: SessionUser): Promise<SessionListDto> {
    return { sessions: await this.sessions.list(user.id, user.sessionId) };
  }

  @Delete()
  @Endpoint({
    summary: 'End all my sessions but the current one',
    description:
      'Every unused mailed link of the account ends too (a pending email change included).',
    access: 'session',
  })
  @ApiOkResponse({ type: EndedSessionsDto, description: 'Their tokens are refused from now on' })
  async revokeOthers(@CurrentUser() user: SessionUser): Promise<EndedSessionsDto> {
    return { ended: await this.sessions.revokeOthers(user.id, user.sessionId) };
  }

  @Delete(':id')
  @Endpoint({
    summary: 'End one of my sessions',
    access: 'session',
    errors: [{ status: 404, description: 'No such session of mine (`NOT_FOUND`)' }],
  })
  @ApiOkResponse({ type: EndedSessionsDto, description: 'Its token is refused from now on' })
  async revoke(
    @CurrentUser() user: SessionUser,
    @Param('id', ParseUUIDPipe) id: string,
  ): Promise<EndedSessionsDto> {
    return { ended: await this.sessions.revoke(user.id, id) };
  }
}
