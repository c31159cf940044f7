import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { EmbeddingsService } from '../ai';
import { CurrentUser } from '../common/auth/auth.decorators';
import type { SessionUser } from '../common/auth/session-user';
import { Endpoint } from '../common/openapi/endpoint.decorator';
import { EmbeddingsRequestDto, EmbeddingsResponseDto } from './dto/embeddings.dto';
import { embeddingInputs, embeddingsResponseOf, requireWithinContext } from './embeddings.mapper';

/**
 * `POST /v1/embeddings`, OpenAI's Embeddings API over the catalogue's embedding models. No
 * metering of its own: EmbeddingsService holds, calls the provider and settles, as for search.
 */
@ApiTags('openai-compatible')
@Controller('v1')
export class EmbeddingsController {
  constructor(private readonly embeddings: EmbeddingsService) {}

  @Post('embeddings')
  @HttpCode(200)
  @Endpoint({
    summary: 'Create embeddings (OpenAI Embeddings API)',
    description:
      'One vector per input, in order, from an embedding model of the catalogue. Metered in ' +
      'credits like a model call (one CONSUMPTION entry "embeddings"): `usage` is the count the ' +
      'provider reported (ceil(characters / 4) per input when it reports none), charged as such; ' +
      '`cost` is the credits charged.',
    access: 'session',
    scope: 'ai',
    errors: [
      {
        status: 400,
        description:
          'Invalid input (`param: "input"`: empty, over the caps, or longer than the model takes), ' +
          'a chat model (`model_capability_missing`), an unknown or unavailable model ' +
          '(`unknown_model`), a model without a price (`model_not_priced`), or token arrays as ' +
          'input (`unsupported_parameter`)',
      },
      402,
      {
        status: 429,
        description:
          "Daily limit of the plan (`daily_limit_reached`) or of the key (`key_daily_limit_reached`), the key's requests per minute (`rate_limited`), or the provider's (`rate_limit`); see Retry-After",
      },
    ],
    body: {
      type: EmbeddingsRequestDto,
      example: {
        model: 'text-embedding-3-small',
        input: ['The food was delicious', 'The service was slow'],
        encoding_format: 'float',
      },
    },
  })
  @ApiOkResponse({ type: EmbeddingsResponseDto })
  async create(
    @CurrentUser() user: SessionUser,
    @Body() body: EmbeddingsRequestDto,
  ): Promise<EmbeddingsResponseDto> {
    const texts = embeddingInputs(body.input);
    await this.embeddings.refresh(); // a model served only by an upstream row added elsewhere
    const model = this.embeddings.requireEmbeddingModel(body.model);
    requireWithinContext(texts, model.maxTokens, (text) => this.embeddings.tokens(text));
    const result = await this.embeddings.embed(model, {
      userId: user.id,
      apiKeyId: user.apiKey?.id,
      teamId: user.apiKey?.teamId,
      plan: user.plan,
      texts,
      dimensions: body.dimensions,
    });
    return embeddingsResponseOf(model.id, result, body.encoding_format ?? 'float');
  }
}
