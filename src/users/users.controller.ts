import {
  Body,
  Controller,
  Delete,
  Get,
  HttpCode,
  Param,
  ParseUUIDPipe,
  Post,
  Put,
  Query,
} from '@nestjs/common';
import { ApiBearerAuth, ApiCookieAuth, ApiTags } from '@nestjs/swagger';
import { CurrentUser, Roles } from '../common/auth/auth.decorators';
import type { SessionUser } from '../common/auth/session-user';
import { Page } from '../common/envelope/envelope';
import { AppError, ErrorCode } from '../common/errors/app-error';
import { ApiErrors } from '../common/openapi/api-errors';
import { PageQueryDto } from '../common/pagination/pagination';
import {
  AdminUserDto,
  CreateUserDto,
  mapAdminUser,
  mapUser,
  UpdateUserDto,
  UserDto,
} from './dto/user.dto';
import { UsersService } from './users.service';

/**
 * Spec "Users", envelope B. Deviation: list, create, update and delete need role ADMIN, and
 * GET by id is also open to the user themself (README "Deviations from the specification").
 */
@ApiTags('users')
@ApiBearerAuth()
@ApiCookieAuth()
@Controller('api/users')
export class UsersController {
  constructor(private readonly users: UsersService) {}

  @Get()
  @Roles('ADMIN')
  @ApiErrors(401, 403)
  async list(@Query() q: PageQueryDto): Promise<Page<AdminUserDto>> {
    const page = await this.users.list(q.limit, q.cursor);
    return new Page(page.data.map(mapAdminUser), page.nextCursor);
  }

  @Post()
  @Roles('ADMIN')
  @ApiErrors(400, 401, 403, 409)
  async create(@Body() dto: CreateUserDto): Promise<AdminUserDto> {
    return mapAdminUser(await this.users.create(dto));
  }

  @Get(':id')
  @ApiErrors(401, 404)
  async get(
    @Param('id', ParseUUIDPipe) id: string,
    @CurrentUser() caller: SessionUser,
  ): Promise<UserDto> {
    // Anyone else's id answers 404, so the existence of accounts does not leak.
    if (caller.role !== 'ADMIN' && caller.id !== id)
      throw new AppError(ErrorCode.USER_NOT_FOUND, 'User not found');
    const user = await this.users.get(id);
    return caller.role === 'ADMIN' ? mapAdminUser(user) : mapUser(user);
  }

  @Put(':id')
  @Roles('ADMIN')
  @ApiErrors(400, 401, 403, 404)
  async update(
    @Param('id', ParseUUIDPipe) id: string,
    @Body() dto: UpdateUserDto,
  ): Promise<AdminUserDto> {
    return mapAdminUser(await this.users.update(id, dto));
  }

  @Delete(':id')
  @HttpCode(200)
  @Roles('ADMIN')
  @ApiErrors(401, 403, 404)
  async remove(@Param('id', ParseUUIDPipe) id: string): Promise<void> {
    await this.users.remove(id);
  }
}
