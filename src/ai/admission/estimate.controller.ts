import { Body, Controller, HttpCode, Inject, Post } from '@nestjs/common';
import { ApiOkResponse, ApiProperty, ApiTags, PickType } from '@nestjs/swagger';
import { IsString, MaxLength } from 'class-validator';
import { Endpoint } from '../../common/openapi/endpoint.decorator';
import { type CreditPricing, estimateTokens } from '../../credits/pricing';
import { CurrentUser } from '../../common/auth/auth.decorators';
import type { SessionUser } from '../../common/auth/session-user';
import { PriceBook } from '../../prices/price-book.service';
import { estimateCredits } from '../../prices/tariff';
import type { ConfigType } from '@nestjs/config';
import { appSettingsConfig } from '../../config/app-settings.config';
import { CreditPrices } from '../../credits/credit-prices';
import { Clock } from '../../common/clock/clock';
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
    private readonly prices: PriceBook,
    private readonly clock: Clock,
    @Inject(appSettingsConfig.KEY) app: ConfigType<typeof appSettingsConfig>,
    creditPrices: CreditPrices,
  ) {
    this.ownOrigin = new URL(app.baseUrl).origin;
    this.pricing = creditPrices.pricing;
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
    errors: [
      {
        status: 400,
        description:
          'Invalid input, unknown `modelId` (UNKNOWN_MODEL), or a model without a price (MODEL_NOT_PRICED)',
      },
    ],
    body: {
      type: EstimateDto,
      example: { modelId: GENERATE_EXAMPLE.modelId!, messages: GENERATE_EXAMPLE.messages },
    },
  })
  @ApiOkResponse({ type: EstimateResultDto })
  async estimate(
    @CurrentUser() user: SessionUser,
    @Body() dto: EstimateDto,
  ): Promise<EstimateResultDto> {
    await Promise.all([this.strategy.refreshUpstreams(), this.prices.fresh()]);
    const model = this.catalogue.require(dto.modelId);
    const opts = { at: this.clock.now(), plan: user.plan, pricing: this.pricing };
    const tariff = this.prices.tariff(model, opts);
    const inputs = readInputs(dto.messages, this.ownOrigin);
    // Images count at their provider's worst case, as the hold does.
    const images = inputs.reduce((n, m) => n + m.images.length, 0);
    const extra = images * IMAGE_TOKENS_WORST_CASE[model.providerId];
    const estimatedTokens = estimateTokens(inputs) + extra;
    // Candidates without a price are left out, as admission leaves them out of the fallbacks.
    const priced = catalogueCandidates(this.catalogue, model, images).flatMap((m) => {
      try {
        return [{ m, t: this.prices.tariff(m, opts) }];
      } catch {
        return [];
      }
    });
    return {
      estimatedTokens,
      cost: estimateCredits(estimatedTokens, tariff),
      maxCost: dearestEstimate(
        priced.map((p) => p.m),
        { messages: inputs, images, toolTokens: 0 },
        (m) => priced.find((p) => p.m.id === m.id)!.t,
      ),
    };
  }
}
