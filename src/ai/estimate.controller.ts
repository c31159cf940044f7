import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiCookieAuth, ApiOkResponse, ApiTags, PickType } from '@nestjs/swagger';
import { ApiErrors } from '../common/openapi/api-errors';
import { estimate, estimateTokens } from '../credits/pricing';
import { GenerateDto } from './dto/generate.dto';
import { ModelCatalogue } from './model-catalogue';

export class EstimateDto extends PickType(GenerateDto, ['messages', 'modelId'] as const) {}

/**
 * POST /api/credits/estimate → `{estimatedTokens, cost}` (spec Limits 2). It lives with the AI
 * module because the credits module knows nothing of models.
 */
@ApiTags('credits')
@ApiBearerAuth()
@ApiCookieAuth()
@Controller('api/credits')
export class EstimateController {
  constructor(private readonly catalogue: ModelCatalogue) {}

  @Post('estimate')
  @HttpCode(200)
  @ApiOkResponse({ description: '{estimatedTokens: ceil(characters / 4), cost: credits}' })
  @ApiErrors(400, 401)
  estimate(@Body() dto: EstimateDto): { estimatedTokens: number; cost: number } {
    const model = this.catalogue.require(dto.modelId);
    return { estimatedTokens: estimateTokens(dto.messages), cost: estimate(dto.messages, model) };
  }
}
