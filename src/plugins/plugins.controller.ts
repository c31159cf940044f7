import {
  Body,
  Controller,
  Delete,
  Get,
  HttpCode,
  Param,
  ParseUUIDPipe,
  Patch,
  Post,
} from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { Endpoint } from '../common/openapi/endpoint.decorator';
import {
  CreatePluginDto,
  mapListing,
  PluginDeletedDto,
  PluginDto,
  PluginListDto,
  UpdatePluginDto,
} from './dto/plugin.dto';
import { PluginsAdminService } from './plugins-admin.service';
import { PluginsService } from './plugins.service';

const ADMIN = { roles: ['ADMIN' as const] };
const FORBIDDEN_URL = {
  status: 400,
  description:
    'Invalid input (`VALIDATION_FAILED`), or a URL the SSRF guard refuses (`PLUGIN_URL_FORBIDDEN`: not https, or a private, loopback, link-local… address)',
};
const UNREACHABLE = {
  status: 422,
  description: 'The server did not connect or list its tools in time (`PLUGIN_UNREACHABLE`)',
};

/** Plugins, i.e. the tools a model may call (envelope C). docs/plugins.md. */
@ApiTags('plugins')
@Controller('api/plugins')
export class PluginsController {
  constructor(
    private readonly plugins: PluginsService,
    private readonly admin: PluginsAdminService,
  ) {}

  @Get()
  @Endpoint({
    summary: 'The built-in plugins and the enabled MCP plugins, with their tools',
    description:
      "An MCP server's tool list is cached for 60 s; a server that cannot be reached is listed with `available: false`.",
    access: 'session',
  })
  @ApiOkResponse({ type: PluginListDto })
  async list(): Promise<PluginListDto> {
    return { plugins: (await this.plugins.list()).map(mapListing) };
  }

  @Post()
  @Endpoint({
    summary: 'Register an MCP plugin (admin); its server must list its tools',
    access: ADMIN,
    errors: [
      FORBIDDEN_URL,
      { status: 409, description: 'The name is taken or built in' },
      UNREACHABLE,
    ],
    body: {
      type: CreatePluginDto,
      example: {
        name: 'weather',
        url: 'https://mcp.example.com/mcp',
        headers: { Authorization: 'Bearer mcp-secret' },
        enabled: true,
      },
    },
  })
  @ApiCreatedResponse({ type: PluginDto })
  register(@Body() dto: CreatePluginDto): Promise<PluginDto> {
    return this.admin.register(dto);
  }

  @Patch(':id')
  @Endpoint({
    summary: "Change a plugin's URL, headers or enabled flag (admin)",
    access: ADMIN,
    errors: [FORBIDDEN_URL, 404, UNREACHABLE],
    body: { type: UpdatePluginDto, example: { enabled: false } },
  })
  @ApiOkResponse({ type: PluginDto })
  update(@Param('id', ParseUUIDPipe) id: string, @Body() dto: UpdatePluginDto): Promise<PluginDto> {
    return this.admin.update(id, dto);
  }

  @Delete(':id')
  @HttpCode(200)
  @Endpoint({ summary: 'Delete a plugin (admin)', access: ADMIN, errors: [404] })
  @ApiOkResponse({ type: PluginDeletedDto })
  async remove(@Param('id', ParseUUIDPipe) id: string): Promise<PluginDeletedDto> {
    await this.admin.remove(id);
    return { id, deleted: true };
  }
}
