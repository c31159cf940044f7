import { PriceBook, type PricingMode } from '../../prices/price-book.service';
import { Body, Controller, Get, HttpCode, Inject, Post, Req, Res } from '@nestjs/common';
import { ApiOkResponse, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import type { ConfigType } from '@nestjs/config';
import { aiConfig } from '../ai.config';
import { CreditPrices } from '../../credits/credit-prices';
import { CurrentUser } from '../../common/auth/auth.decorators';
import type { SessionUser } from '../../common/auth/session-user';
import { Endpoint, type EndpointOptions } from '../../common/openapi/endpoint.decorator';
import { PreferencesService } from '../../users/preferences/preferences.service';
import { GENERATE_EXAMPLE, GenerateDto, GenerateResultDto, ModelsDto } from '../dto/generate.dto';
import { ApiAiStreamResponse, STREAM_DESCRIPTION } from '../dto/stream.dto';
import { ModelCatalogue } from '../../models/model-catalogue';
import { GENERATE_PROTOCOL, streamProtocol } from './own-protocols';
import { ProtocolRunner } from './protocol-runner.service';

/** Shared by generate and stream: same body, same failures before the first byte. */
const GENERATE: Omit<EndpointOptions<GenerateDto>, 'summary'> = {
  access: 'session',
  scope: 'ai',
  errors: [
    {
      status: 400,
      description:
        'Invalid input (`VALIDATION_FAILED` naming the field, also for `modelId` named nowhere, ' +
        "values outside the model's range, more than 4 images, a file that is not an image or a " +
        'remote image URL), unknown `modelId` (`UNKNOWN_MODEL`), a parameter the model does not ' +
        'accept (`UNSUPPORTED_PARAMETER`), images to a model without `vision` or plugins to one ' +
        'without `tools` (`MODEL_CAPABILITY_MISSING`), an unknown or disabled plugin ' +
        '(`UNKNOWN_PLUGIN`), or a plugin whose address is not allowed (`PLUGIN_URL_FORBIDDEN`)',
    },
    402,
    {
      status: 403,
      description:
        'An API key without a scope the request needs (`INSUFFICIENT_SCOPE`, `requiredScope`: ' +
        '`chats:write` for `chatId`, `chats:read` for an upload not your own or `search_my_chats`), ' +
        'or a plugin that reads your private data in a chat others can read ' +
        '(`PLUGIN_NOT_ALLOWED`, `plugins` names it)',
    },
    {
      status: 404,
      description:
        '`chatId` is not a chat of yours, or an image is not an upload you may read (`code`: NOT_FOUND)',
    },
    {
      status: 422,
      description: "A plugin's MCP server could not list its tools (`PLUGIN_UNREACHABLE`)",
    },
    {
      status: 413,
      description: 'Messages over the size limits, or JSON over 1 MB (`code`: PAYLOAD_TOO_LARGE)',
    },
    {
      status: 429,
      description: 'Daily limit (`DAILY_LIMIT_REACHED`) or the provider rate-limits (`RATE_LIMIT`)',
    },
    { status: 401, description: 'No session, or the provider refused our key (`INVALID_API_KEY`)' },
  ],
  body: { type: GenerateDto, example: GENERATE_EXAMPLE },
};

/** Spec "AI", envelope C. Replies carry `Server-Timing` (our code vs upstream). */
@ApiTags('ai')
@Controller('api/ai')
export class AiController {
  constructor(
    private readonly runner: ProtocolRunner,
    private readonly catalogue: ModelCatalogue,
    private readonly prices: PriceBook,
    preferences: PreferencesService,
    @Inject(aiConfig.KEY) ai: ConfigType<typeof aiConfig>,
    creditPrices: CreditPrices,
  ) {
    this.streamProtocol = streamProtocol(preferences, ai.ssePingMs);
    this.pricing = creditPrices.pricing;
  }

  /** CREDIT_PRICING and CREDIT_MARKUP: how the catalogue's prices are shown. */
  private readonly pricing: PricingMode;

  private readonly streamProtocol: ReturnType<typeof streamProtocol>;

  @Get('models')
  @Endpoint({ summary: 'List the available models', access: 'public', database: false })
  @ApiOkResponse({ type: ModelsDto })
  models(): ModelsDto {
    const pricing = this.pricing;
    return {
      models: this.catalogue.list().map((m) => {
        const prices = this.prices.shown(m, { pricing });
        return prices ? { ...m, prices } : m;
      }),
      markups: { default: String(pricing.markup), plans: this.prices.planMarkups() },
    };
  }

  @Post('generate')
  @HttpCode(200)
  @Endpoint({ summary: 'Generate a whole reply', ...GENERATE })
  @ApiOkResponse({ type: GenerateResultDto, description: 'Header `Server-Timing`' })
  generate(
    @CurrentUser() user: SessionUser,
    @Body() dto: GenerateDto,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    return this.runner.run(GENERATE_PROTOCOL, user, dto, req, res);
  }

  @Post('stream')
  @Endpoint({ summary: 'Stream a reply', description: STREAM_DESCRIPTION, ...GENERATE })
  @ApiAiStreamResponse()
  stream(
    @CurrentUser() user: SessionUser,
    @Body() dto: GenerateDto,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    return this.runner.run(this.streamProtocol, user, dto, req, res);
  }
}
