import { Body, Controller, HttpCode, Post, Req, Res } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { ApiOkResponse, ApiSecurity, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { AiService } from '../ai/ai.service';
import { ServerTiming } from '../ai/server-timing';
import { streamTo } from '../ai/stream-sinks';
import { CurrentUser } from '../common/auth/auth.decorators';
import type { SessionUser } from '../common/auth/session-user';
import { AppError, ErrorCode } from '../common/errors/app-error';
import { ErrorPresenter } from '../common/errors/error-presenter';
import { arrivalOf } from '../common/http/arrival';
import { Endpoint } from '../common/openapi/endpoint.decorator';
import type { AppConfig } from '../config/app.config';
import { type ModelDescriptor, ModelCatalogue } from '../models/model-catalogue';
import { anthropicMessageOf } from './anthropic-message.mapper';
import {
  clientToolsOf,
  MESSAGES_OUTPUT_LIMITS,
  toWireGenerateDto,
  wantsThinking,
} from './anthropic-messages.mapper';
import { AnthropicStreamSink } from './anthropic-stream-sink';
import { AnthropicMessageOutDto, CountTokensResultDto } from './dto/message.dto';
import { ApiAnthropicMessageResponse } from './dto/message-stream.dto';
import { CountTokensRequestDto, MessagesRequestDto } from './dto/messages-request.dto';
import { promptTokensEstimate } from './prompt-estimate';

const EXAMPLE = {
  model: 'claude-haiku-4-5',
  max_tokens: 100,
  messages: [{ role: 'user' as const, content: 'Say hello in French.' }],
};

/**
 * Anthropic's Messages API, so Claude Code and the Anthropic SDKs work by changing their base
 * URL and key (`x-api-key: sk-…` or `Authorization: Bearer sk-…`; `anthropic-version` and
 * `anthropic-beta` are ignored), for every catalogue chat model. No metering of its own: every
 * call goes through AiService. Errors are in Anthropic's shape (the error filter decides by the
 * `/v1/messages` path).
 */
@ApiTags('anthropic-compatible')
@ApiSecurity('x-api-key')
@Controller('v1/messages')
export class AnthropicMessagesController {
  constructor(
    private readonly ai: AiService,
    private readonly catalogue: ModelCatalogue,
    private readonly errors: ErrorPresenter,
    config: ConfigService<AppConfig, true>,
  ) {
    this.ownOrigin = new URL(config.get('app', { infer: true }).baseUrl).origin;
  }

  /** Our own origin: image URLs of uploads are read as ours (see readInputs). */
  private readonly ownOrigin: string;

  @Post()
  @HttpCode(200)
  @Endpoint({
    summary: 'Create a message (Anthropic Messages API)',
    description:
      "`stream: true` answers `text/event-stream` with Anthropic's events. The client runs its " +
      '`tools`: their calls come back as `tool_use` blocks (`stop_reason: "tool_use"`). Metered ' +
      'in credits like `/api/ai/generate`; nothing is saved as a chat.',
    access: 'session',
    scope: 'ai',
    errors: [
      {
        status: 400,
        description:
          'Invalid input (`invalid_request_error`; `details.param` names the field), an unknown ' +
          "model, `max_tokens` above the model's or your plan's maximum, images or tools or " +
          '`thinking` for a model without that capability, or a field we cannot honour (`top_k`, ' +
          'server tools)',
      },
      { status: 402, description: 'Insufficient credits (`billing_error`)' },
      {
        status: 403,
        description: "An image URL names another user's upload and the key lacks `chats:read`",
      },
      { status: 404, description: 'An image URL names an upload you may not read' },
      {
        status: 429,
        description:
          "Daily limit of the plan or of the key, the key's requests per minute, or the provider's (`rate_limit_error`); see Retry-After",
      },
    ],
    body: { type: MessagesRequestDto, example: EXAMPLE },
  })
  @ApiAnthropicMessageResponse()
  async create(
    @CurrentUser() user: SessionUser,
    @Body() body: MessagesRequestDto,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    const dto = toWireGenerateDto(body);
    const clientTools = clientToolsOf(body);
    await this.ai.refreshModels();
    this.checkThinking(body);
    const timing = new ServerTiming(arrivalOf(req));
    // A wire request carries its own parameters: the caller's stored preferences do not apply.
    const call = {
      timing,
      store: false,
      preferences: null,
      outputLimits: MESSAGES_OUTPUT_LIMITS,
      ...(clientTools ? { clientTools } : {}),
    };
    if (!body.stream) {
      const result = await this.ai.generate(user, dto, call);
      res.setHeader('Server-Timing', timing.header());
      res
        .status(200)
        .json(anthropicMessageOf(result.modelId, result) satisfies AnthropicMessageOutDto);
      return;
    }
    const sink = new AnthropicStreamSink(res, body.model, (err) => this.errors.present(err, req));
    await streamTo(res, sink, (signal) => this.ai.stream(user, dto, sink, { ...call, signal }));
  }

  @Post('count_tokens')
  @HttpCode(200)
  @Endpoint({
    summary: 'Count the input tokens of a message (Anthropic Messages API)',
    description:
      'Our estimate of the prompt, the one the credit hold of `POST /v1/messages` uses ' +
      "(ceil(characters / 4) of the text, tool calls, tool results and tools, images at their provider's " +
      "worst case), not the provider's tokenizer. Nothing is charged.",
    access: 'session',
    scope: 'ai',
    body: {
      type: CountTokensRequestDto,
      example: { model: EXAMPLE.model, messages: EXAMPLE.messages },
    },
  })
  @ApiOkResponse({ type: CountTokensResultDto })
  async countTokens(@Body() body: CountTokensRequestDto): Promise<CountTokensResultDto> {
    await this.ai.refreshModels();
    const dto = toWireGenerateDto(body);
    const tools = clientToolsOf(body);
    const model = this.checkThinking(body);
    return { input_tokens: promptTokensEstimate(dto, model, tools, this.ownOrigin) };
  }

  /** The model; `thinking` enabled needs its `reasoning` capability (400 otherwise). */
  private checkThinking(body: CountTokensRequestDto): ModelDescriptor {
    const model = this.catalogue.require(body.model);
    if (wantsThinking(body) && !model.capabilities.includes('reasoning'))
      throw new AppError(
        ErrorCode.MODEL_CAPABILITY_MISSING,
        `Model ${model.id} does not reason: thinking cannot be enabled`,
        { param: 'thinking' },
      );
    return model;
  }
}
