import { Body, Controller, Get, HttpCode, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiCookieAuth, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { CurrentUser, Public } from '../common/auth/auth.decorators';
import type { SessionUser } from '../common/auth/session-user';
import { ApiErrors } from '../common/openapi/api-errors';
import { AiService } from './ai.service';
import { GenerateDto, GenerateResultDto } from './dto/generate.dto';
import { ModelCatalogue, type ModelDescriptor } from './model-catalogue';

/** Spec "AI", envelope C. */
@ApiTags('ai')
@Controller('api/ai')
export class AiController {
  constructor(
    private readonly ai: AiService,
    private readonly catalogue: ModelCatalogue,
  ) {}

  @Public()
  @Get('models')
  @ApiOkResponse({
    description: '`{models: [{id, name, providerId, maxTokens, costPerToken, available}]}`',
  })
  models(): { models: ModelDescriptor[] } {
    return { models: this.catalogue.list() };
  }

  @Post('generate')
  @HttpCode(200)
  @ApiBearerAuth()
  @ApiCookieAuth()
  @ApiOkResponse({ type: GenerateResultDto })
  @ApiErrors(400, 401, 402, 500)
  generate(@CurrentUser() user: SessionUser, @Body() dto: GenerateDto): Promise<GenerateResultDto> {
    return this.ai.generate(user, dto);
  }
}
