import { Body, Controller, Delete, Get, Param, ParseUUIDPipe, Patch, Post } from '@nestjs/common';
import { ApiOkResponse, ApiCreatedResponse, ApiTags } from '@nestjs/swagger';
import { CurrentUser } from '../common/auth/auth.decorators';
import type { SessionUser } from '../common/auth/session-user';
import { Endpoint } from '../common/openapi/endpoint.decorator';
import { ApiKeysService } from './api-keys.service';
import {
  ApiKeyDto,
  ApiKeyListDto,
  CreateApiKeyDto,
  CreatedApiKeyDto,
  RevokedApiKeyDto,
  UpdateApiKeyDto,
} from './dto/api-key.dto';

/**
 * My personal API keys (envelope C). Session only: a key can never manage keys (403
 * INSUFFICIENT_SCOPE), so a leaked key cannot mint another.
 */
@ApiTags('api keys')
@Controller('api/keys')
export class ApiKeysController {
  constructor(private readonly keys: ApiKeysService) {}

  @Post()
  @Endpoint({
    summary: 'Create an API key (the secret is shown only in this answer)',
    access: 'session',
    errors: [
      {
        status: 403,
        description:
          "The address is not verified (`EMAIL_NOT_VERIFIED`), or a team's key asked by a MEMBER",
      },
      { status: 404, description: '`teamId` names a team the caller is not a member of' },
      { status: 409, description: '20 active keys already (`code`: LIMIT_REACHED)' },
    ],
    body: {
      type: CreateApiKeyDto,
      example: { name: 'CI script', scopes: ['ai', 'chats:read'], dailyCreditLimit: 500 },
    },
  })
  @ApiCreatedResponse({ type: CreatedApiKeyDto })
  create(
    @CurrentUser() user: SessionUser,
    @Body() dto: CreateApiKeyDto,
  ): Promise<CreatedApiKeyDto> {
    return this.keys.create(user, dto);
  }

  @Get()
  @Endpoint({ summary: 'List my API keys (never the secrets)', access: 'session' })
  @ApiOkResponse({ type: ApiKeyListDto })
  async list(@CurrentUser() user: SessionUser): Promise<ApiKeyListDto> {
    return { keys: await this.keys.list(user.id) };
  }

  @Patch(':id')
  @Endpoint({
    summary: 'Rename an API key or change its daily credit limit',
    access: 'session',
    errors: [404],
    body: { type: UpdateApiKeyDto, example: { name: 'Laptop', dailyCreditLimit: null } },
  })
  @ApiOkResponse({ type: ApiKeyDto })
  update(
    @CurrentUser() user: SessionUser,
    @Param('id', ParseUUIDPipe) id: string,
    @Body() dto: UpdateApiKeyDto,
  ): Promise<ApiKeyDto> {
    return this.keys.update(user.id, id, dto);
  }

  @Delete(':id')
  @Endpoint({ summary: 'Revoke an API key, at once', access: 'session', errors: [404] })
  @ApiOkResponse({ type: RevokedApiKeyDto, description: 'The next request with it is 401' })
  revoke(
    @CurrentUser() user: SessionUser,
    @Param('id', ParseUUIDPipe) id: string,
  ): Promise<RevokedApiKeyDto> {
    return this.keys.revoke(user.id, id);
  }
}
