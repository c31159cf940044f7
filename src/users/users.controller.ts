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
import { ApiTags } from '@nestjs/swagger';
import { CurrentUser } from '../common/auth/auth.decorators';
import type { SessionUser } from '../common/auth/session-user';
import { Page } from '../common/envelope/envelope';
import { AppError } from '../common/errors/app-error';
import { UsersErrorCode } from './users.errors';
import { ApiEnvelopeB } from '../common/openapi/api-envelope';
import { Endpoint } from '../common/openapi/endpoint.decorator';
import {
  AdminUserDto,
  CreateUserDto,
  mapAdminUser,
  mapUser,
  UpdateUserDto,
  UserDto,
  UserListQueryDto,
} from './dto/user.dto';
import { UsersService } from './users.service';

const ADMIN = { roles: ['ADMIN' as const] };

/**
 * Spec "Users", envelope B. Deviation: list, create, update and delete need role ADMIN, and
 * GET by id is also open to the user themself (README "Deviations from the specification").
 */
@ApiTags('users')
@Controller('api/users')
export class UsersController {
  constructor(private readonly users: UsersService) {}

  @Get()
  @Endpoint({ summary: 'List or search users (admin)', access: ADMIN })
  @ApiEnvelopeB(AdminUserDto, { paginated: true, description: 'newest first' })
  async list(@Query() q: UserListQueryDto): Promise<Page<AdminUserDto>> {
    const page = await this.users.list(q.limit, q.cursor, q.q);
    return new Page(page.data.map(mapAdminUser), page.nextCursor);
  }

  @Post()
  @Endpoint({
    summary: 'Create a user (admin)',
    access: ADMIN,
    errors: [{ status: 409, description: 'The email is taken (`code`: EMAIL_TAKEN)' }],
    body: {
      type: CreateUserDto,
      example: { email: 'grace@example.com', name: 'Grace Hopper', role: 'USER', plan: 'BASIC' },
    },
  })
  @ApiEnvelopeB(AdminUserDto, { status: 201 })
  async create(@Body() dto: CreateUserDto): Promise<AdminUserDto> {
    return mapAdminUser(await this.users.create(dto));
  }

  @Get(':id')
  @Endpoint({
    summary: 'Read a user',
    description: 'Yourself, or anyone for an admin (who also sees `paymentCustomerId`).',
    access: 'session',
    errors: [404],
  })
  @ApiEnvelopeB([UserDto, AdminUserDto])
  async get(
    @Param('id', ParseUUIDPipe) id: string,
    @CurrentUser() caller: SessionUser,
  ): Promise<UserDto> {
    // Anyone else's id answers 404, so the existence of accounts does not leak.
    if (caller.role !== 'ADMIN' && caller.id !== id)
      throw new AppError(UsersErrorCode.USER_NOT_FOUND, 'User not found');
    const user = await this.users.get(id);
    return caller.role === 'ADMIN' ? mapAdminUser(user) : mapUser(user);
  }

  @Put(':id')
  @Endpoint({
    summary: 'Update a user (admin)',
    description:
      'A new `credits` balance is recorded as an ADJUSTMENT ledger entry, described by `reason`.',
    access: ADMIN,
    errors: [404],
    body: {
      type: UpdateUserDto,
      example: {
        name: 'Grace M. Hopper',
        plan: 'PRO',
        credits: 500,
        reason: 'Support ticket 4711',
      },
    },
  })
  @ApiEnvelopeB(AdminUserDto)
  async update(
    @Param('id', ParseUUIDPipe) id: string,
    @Body() dto: UpdateUserDto,
  ): Promise<AdminUserDto> {
    return mapAdminUser(await this.users.update(id, dto));
  }

  @Delete(':id')
  @HttpCode(200)
  @Endpoint({ summary: 'Delete a user and their data (admin)', access: ADMIN, errors: [404] })
  @ApiEnvelopeB(null)
  async remove(@Param('id', ParseUUIDPipe) id: string): Promise<void> {
    await this.users.remove(id);
  }
}
