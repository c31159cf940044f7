import { Injectable, Logger } from '@nestjs/common';
import type { SessionUser } from '../common/auth/session-user';
import { AppError, ErrorCode } from '../common/errors/app-error';
import { CreditsService } from '../credits/credits.service';
import { cost, estimate } from '../credits/pricing';
import type { GenerateDto, GenerateResultDto } from './dto/generate.dto';
import { ModelCatalogue } from './model-catalogue';
import { ProviderStrategy } from './provider-strategy.service';
import { ProviderError } from './providers/model-provider';

/** Spec Limits 4: at most 1000 output tokens per request. */
export const MAX_OUTPUT_TOKENS = 1000;

/** Metered replies: pick the model, check the balance, call the provider, charge the usage. */
@Injectable()
export class AiService {
  private readonly logger = new Logger(AiService.name);

  constructor(
    private readonly catalogue: ModelCatalogue,
    private readonly strategy: ProviderStrategy,
    private readonly credits: CreditsService,
  ) {}

  /**
   * A whole reply (spec AI rules 1, 2, 4). Throws UNKNOWN_MODEL (400), INSUFFICIENT_CREDITS
   * (402) when the balance is below the estimate or the actual cost, PROVIDER_ERROR (500) when
   * the upstream fails; nothing is charged on any failure.
   */
  async generate(user: SessionUser, dto: GenerateDto): Promise<GenerateResultDto> {
    const model = this.catalogue.require(dto.modelId);
    const estimated = estimate(dto.messages, model);
    const balance = await this.credits.balance(user.id);
    if (balance < estimated) {
      throw new AppError(ErrorCode.INSUFFICIENT_CREDITS, 'Insufficient credits', {
        required: estimated,
        balance,
      });
    }
    const result = await this.callProvider(() =>
      this.strategy
        .for(model)
        .generate({ model: model.id, messages: dto.messages, maxTokens: MAX_OUTPUT_TOKENS }),
    );
    const charge = cost(result.usage, model);
    const { promptTokens, completionTokens } = result.usage;
    await this.credits.consume(
      user.id,
      charge,
      `AI generate ${model.id}: ${promptTokens} prompt + ${completionTokens} completion tokens`,
    );
    return { text: result.text, usage: result.usage, cost: charge };
  }

  private async callProvider<T>(call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (err) {
      if (!(err instanceof ProviderError)) throw err;
      this.logger.warn({ provider: err.providerId, status: err.upstreamStatus }, err.message);
      throw new AppError(ErrorCode.PROVIDER_ERROR, 'The model provider failed to generate a reply');
    }
  }
}
