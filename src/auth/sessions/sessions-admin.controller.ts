import { Controller, Delete, Param, ParseUUIDPipe } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { ApiEnvelopeB } from '../../common/openapi/api-envelope';
import { Endpoint } from '../../common/openapi/endpoint.decorator';
import { UsersService } from '../../users/users.service';
import { EndedSessionsDto } from './dto/sessions.dto';
import { SessionsService } from './sessions.service';

/**
 * DELETE /api/users/{id}/sessions: an administrator signs a user out everywhere (every live
 * session and unused mailed link of the account ends, as with the user's own "end all"),
 * envelope B like the rest of `/api/users`.
 */
@ApiTags('users')
@Controller('api/users')
export class SessionsAdminController {
  constructor(
    private readonly sessions: SessionsService,
    private readonly users: UsersService,
  ) {}

  @Delete(':id/sessions')
  @Endpoint({
    summary: 'End every session of a user (admin)',
    access: { roles: ['ADMIN'] },
    errors: [{ status: 404, description: 'No such user (`USER_NOT_FOUND`)' }],
  })
  @ApiEnvelopeB(EndedSessionsDto, { description: 'Their tokens are refused from now on' })
  async revokeAll(@Param('id', ParseUUIDPipe) id: string): Promise<EndedSessionsDto> {
    await this.users.get(id);
    return { ended: await this.sessions.revokeOthers(id, undefined) };
  }
}
