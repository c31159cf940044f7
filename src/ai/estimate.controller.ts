import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiOkResponse, ApiProperty, ApiTags, PickType } from '@nestjs/swagger';
import { IsString, MaxLength } from 'class-validator';
import { Endpoint } from '../common/openapi/endpoint.decorator';
import { estimate, estimateTokens } from '../credits/pricing';
import { GENERATE_EXAMPLE, GenerateDto } from './dto/generate.dto';
import { ModelCatalogue } from './model-catalogue';

export class EstimateDto extends PickType(GenerateDto, ['messages'] as const) {
  @ApiProperty({ example: 'gpt-4o-mini' }) @IsString() @MaxLength(200) modelId: string;
}

export class EstimateResultDto {
  @ApiProperty({ type: 'integer', example: 25, description: 'ceil(characters / 4)' })
  estimatedTokens: number;
  @ApiProperty({ type: 'integer', example: 1, description: 'credits' }) cost: number;
}

/**
 * POST /api/credits/estimate → `{estimatedTokens, cost}` (spec Limits 2). It lives with the AI
 * module because the credits module knows nothing of models.
 */
@ApiTags('credits')
@Controller('api/credits')
export class EstimateController {
  constructor(private readonly catalogue: ModelCatalogue) {}

  @Post('estimate')
  @HttpCode(200)
  @Endpoint({
    summary: 'Estimate the cost of a message',
    access: 'session',
    scope: 'ai',
    errors: [{ status: 400, description: 'Invalid input, or unknown `modelId` (UNKNOWN_MODEL)' }],
    body: {
      type: EstimateDto,
      example: { modelId: GENERATE_EXAMPLE.modelId!, messages: GENERATE_EXAMPLE.messages },
    },
  })
  @ApiOkResponse({ type: EstimateResultDto })
  estimate(@Body() dto: EstimateDto): EstimateResultDto {
    const model = this.catalogue.require(dto.modelId);
    return { estimatedTokens: estimateTokens(dto.messages), cost: estimate(dto.messages, model) };
  }
}
