import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiParam, ApiTags } from '@nestjs/swagger';
import { Endpoint } from '../common/openapi/endpoint.decorator';
import { CreateUpstreamDto, UpdateUpstreamDto } from './dto/upstream-input.dto';
import {
  UpstreamDeletedDto,
  UpstreamDto,
  UpstreamListDto,
  UpstreamTestResultDto,
} from './dto/upstream.dto';
import { UpstreamIdPipe } from './upstream-id.pipe';
import { UpstreamTester } from './upstream-tester';
import { UpstreamsAdminService } from './upstreams-admin.service';

const ADMIN = { roles: ['ADMIN' as const] };
const INVALID = {
  status: 400,
  description:
    'Invalid input (`VALIDATION_FAILED`), a model id outside the catalogue (`UNKNOWN_MODEL`), a ' +
    '`baseUrl` reaching a link-local, metadata or other address class UPSTREAM_ALLOW_PRIVATE does ' +
    'not allow (`UPSTREAM_URL_FORBIDDEN`), or a `baseUrl` of another origin for an upstream with a ' +
    'key, without `apiKey` beside it (`UPSTREAM_KEY_REQUIRED`: a key stays with its host)',
};
const READ_ONLY = {
  status: 409,
  description:
    'An upstream of the environment (`UPSTREAM_READ_ONLY`), or a taken name (`CONFLICT`)',
};
const ID = { name: 'id', description: 'a uuid, or `env:openai`, `env:anthropic`, `env:google`' };

/** The upstreams each provider's models are called through, for administrators. docs/upstreams.md. */
@ApiTags('admin')
@Controller('api/admin/upstreams')
export class UpstreamsController {
  constructor(
    private readonly admin: UpstreamsAdminService,
    private readonly tester: UpstreamTester,
  ) {}

  @Get()
  @Endpoint({
    summary: 'Every upstream with its health (admin)',
    description:
      'The environment’s upstreams (`source: environment`, read-only) first, then the table’s by name. Keys are never answered, only `hasApiKey`.',
    access: ADMIN,
  })
  @ApiOkResponse({ type: UpstreamListDto })
  async list(): Promise<UpstreamListDto> {
    return { data: await this.admin.list() };
  }

  @Post()
  @Endpoint({
    summary: 'Add an upstream (admin)',
    access: ADMIN,
    errors: [INVALID, { status: 409, description: 'The name is taken (`CONFLICT`)' }],
    body: {
      type: CreateUpstreamDto,
      example: {
        provider: 'openai',
        name: 'openai-eu',
        baseUrl: 'https://eu.api.openai.com/v1',
        apiKey: 'sk-upstream-key',
        models: ['gpt-4o-mini'],
        priority: 10,
        weight: 3,
      },
    },
  })
  @ApiCreatedResponse({ type: UpstreamDto })
  create(@Body() dto: CreateUpstreamDto): Promise<UpstreamDto> {
    return this.admin.create(dto);
  }

  @Get(':id')
  @ApiParam(ID)
  @Endpoint({ summary: 'One upstream with its health (admin)', access: ADMIN, errors: [404] })
  @ApiOkResponse({ type: UpstreamDto })
  get(@Param('id', UpstreamIdPipe) id: string): Promise<UpstreamDto> {
    return this.admin.get(id);
  }

  @Patch(':id')
  @ApiParam(ID)
  @Endpoint({
    summary: 'Change an upstream (admin); it is healthy again afterwards',
    access: ADMIN,
    errors: [INVALID, 404, READ_ONLY],
    body: { type: UpdateUpstreamDto, example: { weight: 1, enabled: false } },
  })
  @ApiOkResponse({ type: UpstreamDto })
  update(
    @Param('id', UpstreamIdPipe) id: string,
    @Body() dto: UpdateUpstreamDto,
  ): Promise<UpstreamDto> {
    return this.admin.update(id, dto);
  }

  @Delete(':id')
  @HttpCode(200)
  @ApiParam(ID)
  @Endpoint({
    summary: 'Delete an upstream (admin)',
    access: ADMIN,
    errors: [
      404,
      { status: 409, description: 'An upstream of the environment (`UPSTREAM_READ_ONLY`)' },
    ],
  })
  @ApiOkResponse({ type: UpstreamDeletedDto })
  async remove(@Param('id', UpstreamIdPipe) id: string): Promise<UpstreamDeletedDto> {
    await this.admin.remove(id);
    return { id, deleted: true };
  }

  @Post(':id/test')
  @HttpCode(200)
  @ApiParam(ID)
  @Endpoint({
    summary: 'Call an upstream with one token (admin)',
    description:
      'Calls the upstream once through its protocol’s adapter. When it serves a chat model (the first chat model it lists, or the first of its protocol’s family when it lists none), the call is a chat call of one user turn with maxTokens 1 (OpenAI `/v1/chat/completions`, Anthropic `/v1/messages`, Gemini `generateContent`); when it lists embedding models only, the call is one embedding of a one-word text on the first of them (OpenAI `/v1/embeddings`, Gemini `batchEmbedContents`). `model` names the model called. `ok: false` carries the upstream’s status and message (its key redacted); a success makes a failing upstream healthy again.',
    access: ADMIN,
    errors: [
      {
        status: 400,
        description:
          'The upstream serves no catalogue model (`VALIDATION_FAILED`), or its `baseUrl` now reaches an address UPSTREAM_ALLOW_PRIVATE does not allow (`UPSTREAM_URL_FORBIDDEN`)',
      },
      404,
    ],
  })
  @ApiOkResponse({ type: UpstreamTestResultDto })
  test(@Param('id', UpstreamIdPipe) id: string): Promise<UpstreamTestResultDto> {
    return this.tester.test(id);
  }
}
