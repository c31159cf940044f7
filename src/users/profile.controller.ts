import { Body, Controller, Put } from '@nestjs/common';
import { ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { CurrentUser } from '../common/auth/auth.decorators';
import type { SessionUser } from '../common/auth/session-user';
import { Endpoint } from '../common/openapi/endpoint.decorator';
import { mapUser, ProfileDto, UpdateProfileDto } from './dto/user.dto';
import { UsersService } from './users.service';

/** PUT /api/user/profile → 200 `{user}`; 401 `{error}` without a session (spec Users). */
@ApiTags('users')
@Controller('api/user')
export class ProfileController {
  constructor(private readonly users: UsersService) {}

  @Put('profile')
  @Endpoint({
    summary: 'Update my name and avatar',
    access: 'session',
    body: {
      type: UpdateProfileDto,
      example: { name: 'Ada Lovelace', avatar: 'https://example.com/ada.png' },
    },
  })
  @ApiOkResponse({ type: ProfileDto })
  async update(
    @CurrentUser() user: SessionUser,
    @Body() dto: UpdateProfileDto,
  ): Promise<ProfileDto> {
    return { user: mapUser(await this.users.updateProfile(user.id, dto)) };
  }
}
