import { Body, Controller, HttpCode, Inject, Post } from '@nestjs/common';
import { ApiOkResponse, ApiProperty, ApiTags, PickType } from '@nestjs/swagger';
import { IsString, MaxLength } from 'class-validator';
import { Endpoint } from '../../common/openapi/endpoint.decorator';
import { type CreditPricing, estimate, estimateTokens } from '../../credits/pricing';
import type { ConfigType } from '@nestjs/config';
import { appSettingsConfig } from '../../config/app-settings.config';
import { CreditPrices } from '../../credits/credit-prices';
import { catalogueCandidates, dearestEstimate } from './fallback-models';
import { IMAGE_TOKENS_WORST_CASE } from './image-tokens';
import { readInputs } from './message-inputs';
import { GENERATE_EXAMPLE, GenerateDto } from '../dto/generate.dto';
import { ModelCatalogue } from '../../models/model-catalogue';
import { ProviderStrategy } from '../routing/provider-strategy.service';

export class EstimateDto extends PickType(GenerateDto, ['messages'] as const) {
  @ApiProperty({ example: 'gpt-4o-mini' }) @IsString() @MaxLength(200) modelId: string;
}

export class EstimateResultDto {
  @ApiProperty({ type: 'integer', example: 25, description: 'ceil(characters / 4)' })
  estimatedTokens: number;
  @ApiProperty({ type: 'integer', example: 1, description: 'credits' }) cost: number;
  @ApiProperty({
    type: 'integer',
    example: 2,
    description:
      'credits: the estimate if the dearest of the model and its catalogue fallbacks that can ' +
      'serve the message answered; equal to `cost` for a model without fallbacks',
  })
  maxCost: number;
}

/**
 * POST /api/credits/estimate → `{estimatedTokens, cost, maxCost}`: `cost` is the requested
 * model's estimate (spec Limits 2), `maxCost` the largest over the models admission would let
 * answer (the model and its catalogue fallbacks, see catalogueCandidates), priced alike. It lives
 * with the AI module because the credits module knows nothing of models.
 */
@ApiTags('credits')
@Controller('api/credits')
export class EstimateController {
  constructor(
    private readonly catalogue: ModelCatalogue,
    private readonly strategy: ProviderStrategy,
    @Inject(appSettingsConfig.KEY) app: ConfigType<typeof appSettingsConfig>,
    prices: CreditPrices,
  ) {
    this.ownOrigin = new URL(app.baseUrl).origin;
    this.pricing = prices.pricing;
  }

  private readonly ownOrigin: string;
  /** CREDIT_PRICING and CREDIT_MARKUP: the estimate is priced as the admission prices it. */
  private readonly pricing: CreditPricing;

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
  async estimate(@Body() dto: EstimateDto): Promise<EstimateResultDto> {
    await this.strategy.refreshUpstreams();
    const model = this.catalogue.require(dto.modelId);
    const inputs = readInputs(dto.messages, this.ownOrigin);
    // Images count at their provider's worst case, as the hold does.
    const images = inputs.reduce((n, m) => n + m.images.length, 0);
    const extra = images * IMAGE_TOKENS_WORST_CASE[model.providerId];
    return {
      estimatedTokens: estimateTokens(inputs) + extra,
      cost: estimate(inputs, model, extra, this.pricing),
      maxCost: dearestEstimate(
        catalogueCandidates(this.catalogue, model, images),
        { messages: inputs, images, toolTokens: 0 },
        this.pricing,
      ),
    };
  }
}
