import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiProperty, ApiTags } from '@nestjs/swagger';
import { CurrentUser } from '../common/auth/auth.decorators';
import type { SessionUser } from '../common/auth/session-user';
import { Endpoint } from '../common/openapi/endpoint.decorator';

class ProtectedMessageDto {
  @ApiProperty({ example: 'You are signed in as ada@example.com' }) message: string;
}

/** GET /api/protected → 200 `{message}` with a session, 401 `{error}` without (spec). */
@ApiTags('auth')
@Controller('api/protected')
export class ProtectedController {
  @Get()
  @Endpoint({ summary: 'Check the session (spec example)', access: 'session' })
  @ApiOkResponse({ type: ProtectedMessageDto })
  get(@CurrentUser() user: SessionUser): ProtectedMessageDto {
    return { message: `You are signed in as ${user.email}` };
  }
}
