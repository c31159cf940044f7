import { Controller, Get, Param } from '@nestjs/common';
import { ApiOkResponse, ApiParam, ApiTags } from '@nestjs/swagger';
import { CurrentUser } from '../common/auth/auth.decorators';
import type { SessionUser } from '../common/auth/session-user';
import { Endpoint } from '../common/openapi/endpoint.decorator';
import {
  OpenRouterGenerationAnswerDto,
  openRouterGenerationOf,
} from '../generations/dto/openrouter-generation.dto';
import { GenerationsService } from '../generations/generations.service';

/** One model call's record in OpenRouter's generation shape. */
@ApiTags('openai-compatible')
@Controller('v1/generations')
export class GatewayGenerationsController {
  constructor(private readonly generations: GenerationsService) {}

  @Get(':id')
  @Endpoint({
    summary: 'A generation (model call) by id, in OpenRouter’s shape',
    description:
      'The id is the `X-Generation-Id` of the answer. Only your own calls; through an API key, ' +
      "only that key's. `total_cost` is in credits (equal to the ledger entry).",
    access: 'session',
    scope: 'ai',
    errors: [{ status: 404, description: 'No generation of yours by that id (`NOT_FOUND`)' }],
  })
  @ApiParam({ name: 'id', description: 'the generation id (`X-Generation-Id`)' })
  @ApiOkResponse({ type: OpenRouterGenerationAnswerDto })
  async get(
    @CurrentUser() user: SessionUser,
    @Param('id') id: string,
  ): Promise<OpenRouterGenerationAnswerDto> {
    return openRouterGenerationOf(await this.generations.ofCaller(user, id));
  }
}
