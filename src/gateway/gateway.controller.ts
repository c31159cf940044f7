import { Body, Controller, Get, HttpCode, Param, Post, Req, Res } from '@nestjs/common';
import { ApiExtraModels, ApiOkResponse, ApiParam, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { type ModelDescriptor, ModelCatalogue } from '../models/model-catalogue';
import { PriceBook, type PricingMode, type ShownPrices } from '../prices/price-book.service';
import { openRouterPricing } from '../prices/openrouter-pricing';
import { CurrentUser } from '../common/auth/auth.decorators';
import type { SessionUser } from '../common/auth/session-user';
import { AppError } from '../common/errors/app-error';
import { GatewayErrorCode } from './gateway.errors';
import { Endpoint } from '../common/openapi/endpoint.decorator';
import {
  ChatCompletionDto,
  ChatCompletionRequestDto,
  OpenAiModelDto,
  OpenAiModelListDto,
} from './dto/chat-completion.dto';
import { ApiChatCompletionResponse } from './dto/completion-stream.dto';
import { CreditPrices, ProtocolRunner } from '../ai';
import { CHAT_COMPLETIONS_PROTOCOL } from './protocols/chat-completions.protocol';

const LOADED_AT = Math.floor(Date.now() / 1000);

/** A catalogue model as OpenAI's model object; `owned_by` is its provider. */
function openAiModelOf(m: ModelDescriptor, shown?: ShownPrices | null): OpenAiModelDto {
  return {
    id: m.id,
    object: 'model',
    created: LOADED_AT,
    owned_by: m.providerId,
    ...(shown ? { pricing: openRouterPricing(shown) } : {}),
  };
}

/**
 * The OpenAI wire protocol, so any OpenAI client works by changing its base URL and
 * key. No metering of its own: every call goes through AiService (admission with the plan's and
 * the key's daily limits and the worst-case hold, settlement, abort accounting). Errors are in
 * OpenAI's shape (the error filter decides by the `/v1` path).
 */
@ApiTags('openai-compatible')
@Controller('v1')
export class GatewayController {
  constructor(
    private readonly runner: ProtocolRunner,
    private readonly catalogue: ModelCatalogue,
    private readonly prices: PriceBook,
    creditPrices: CreditPrices,
  ) {
    this.pricing = creditPrices.pricing;
  }

  /** CREDIT_PRICING and CREDIT_MARKUP: how `pricing` is shown. */
  private readonly pricing: PricingMode;

  @Get('models')
  @Endpoint({
    summary: 'List the available chat models (OpenAI shape)',
    access: 'session',
    scope: 'ai',
  })
  @ApiOkResponse({ type: OpenAiModelListDto })
  models(@CurrentUser() user: SessionUser): OpenAiModelListDto {
    const opts = { plan: user.plan, pricing: this.pricing };
    return {
      object: 'list',
      data: this.catalogue
        .list()
        .filter((m) => m.available)
        .map((m) => openAiModelOf(m, this.prices.shown(m, opts))),
    };
  }

  @Get('models/:model')
  @Endpoint({
    summary: 'Retrieve a model (OpenAI shape)',
    description:
      'An available chat model of `GET /v1/models`, or an embedding model of `POST /v1/embeddings`. ' +
      'An id holding `/` is sent percent-encoded (`%2F`), as the OpenAI SDKs do.',
    access: 'session',
    scope: 'ai',
    errors: [{ status: 404, description: 'No available model of that id (`model_not_found`)' }],
  })
  @ApiParam({ name: 'model', example: 'gpt-4o-mini', description: 'a model id' })
  @ApiOkResponse({ type: OpenAiModelDto })
  model(@CurrentUser() user: SessionUser, @Param('model') id: string): OpenAiModelDto {
    const embedding = this.catalogue.embeddingModel(id);
    const model = this.catalogue.find(id) ?? (embedding?.available ? embedding : undefined);
    if (!model)
      throw new AppError(GatewayErrorCode.MODEL_NOT_FOUND, `The model '${id}' does not exist`, {
        param: 'model',
      });
    // Priced as the list prices it (the caller's plan's markup); an embedding model by its input.
    const opts = { plan: user.plan, pricing: this.pricing, embedding: model === embedding };
    return openAiModelOf(model, this.prices.shown(model, opts));
  }

  @Post('chat/completions')
  @HttpCode(200)
  @Endpoint({
    summary: 'Create a chat completion (OpenAI Chat Completions API)',
    description:
      '`stream: true` answers `text/event-stream` with `chat.completion.chunk` frames and ' +
      '`data: [DONE]`. Metered in credits like `/api/ai/generate`; saved as a chat only with ' +
      '`store: true`.',
    access: 'session',
    scope: 'ai',
    errors: [
      {
        status: 400,
        description:
          'Invalid input (also a remote `image_url` or bytes that are not the image they claim, ' +
          "or `max_tokens` above the model's or your plan's maximum: `param` names it), " +
          'unknown model (`unknown_model`), images to a model without vision ' +
          '(`model_capability_missing`), or a field we cannot honour (`unsupported_parameter`, ' +
          '`param` names it)',
      },
      402,
      {
        status: 403,
        description:
          "An `image_url` names an upload that is not the key's user's own, and the key lacks `chats:read` (`insufficient_scope`)",
      },
      { status: 404, description: 'An `image_url` names an upload you may not read (`not_found`)' },
      {
        status: 429,
        description:
          "Daily limit of the plan (`daily_limit_reached`) or of the key (`key_daily_limit_reached`), the key's requests per minute (`rate_limited`), or the provider's (`rate_limit`); see Retry-After",
      },
    ],
    body: {
      type: ChatCompletionRequestDto,
      example: {
        model: 'gpt-4o-mini',
        messages: [{ role: 'user', content: 'Say hello in French.' }],
        max_tokens: 100,
      },
    },
  })
  @ApiExtraModels(ChatCompletionDto)
  @ApiChatCompletionResponse()
  completions(
    @CurrentUser() user: SessionUser,
    @Body() body: ChatCompletionRequestDto,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    return this.runner.run(CHAT_COMPLETIONS_PROTOCOL, user, body, req, res);
  }
}
