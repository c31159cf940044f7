import { Body, Controller, Put } from '@nestjs/common';
import { ApiBearerAuth, ApiCookieAuth, ApiTags } from '@nestjs/swagger';
import { CurrentUser } from '../common/auth/auth.decorators';
import type { SessionUser } from '../common/auth/session-user';
import { ApiErrors } from '../common/openapi/api-errors';
import { mapUser, UpdateProfileDto, UserDto } from './dto/user.dto';
import { UsersService } from './users.service';

/** PUT /api/user/profile → 200 `{user}`; 401 `{error}` without a session (spec Users). */
@ApiTags('users')
@ApiBearerAuth()
@ApiCookieAuth()
@Controller('api/user')
export class ProfileController {
  constructor(private readonly users: UsersService) {}

  @Put('profile')
  @ApiErrors(400, 401)
  async update(
    @CurrentUser() user: SessionUser,
    @Body() dto: UpdateProfileDto,
  ): Promise<{ user: UserDto }> {
    return { user: mapUser(await this.users.updateProfile(user.id, dto)) };
  }
}
