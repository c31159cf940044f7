import { Body, Controller, HttpCode, Post, Req, Res } from '@nestjs/common';
import { ApiOkResponse, ApiSecurity, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { AiService, ProtocolRunner } from '../ai';
import { CurrentUser } from '../common/auth/auth.decorators';
import type { SessionUser } from '../common/auth/session-user';
import { Endpoint } from '../common/openapi/endpoint.decorator';
import { clientToolsOf, toWireGenerateDto, wantsThinking } from './anthropic-messages.mapper';
import { MESSAGES_PROTOCOL } from './protocols/messages.protocol';
import { CountTokensResultDto } from './dto/message.dto';
import { ApiAnthropicMessageResponse } from './dto/message-stream.dto';
import { CountTokensRequestDto, MessagesRequestDto } from './dto/messages-request.dto';

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
    private readonly runner: ProtocolRunner,
  ) {}

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
  create(
    @CurrentUser() user: SessionUser,
    @Body() body: MessagesRequestDto,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    return this.runner.run(MESSAGES_PROTOCOL, user, body, req, res);
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
    const dto = toWireGenerateDto(body);
    const tools = clientToolsOf(body);
    const options = { ...(tools ? { clientTools: tools } : {}), thinking: wantsThinking(body) };
    return { input_tokens: await this.ai.promptTokens(dto, options) };
  }
}
