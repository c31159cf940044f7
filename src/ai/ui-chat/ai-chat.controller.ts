import { Body, Controller, Inject, Post, Req, Res } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { aiConfig } from '../ai.config';
import { ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { ChatsService } from '../../chats/chats.service';
import { CurrentUser } from '../../common/auth/auth.decorators';
import type { SessionUser } from '../../common/auth/session-user';
import { Endpoint } from '../../common/openapi/endpoint.decorator';
import { ApiUiMessageStreamResponse, UI_CHAT_DESCRIPTION } from './ui-chat-stream.dto';
import type { Protocol } from '../calls/protocol';
import { ProtocolRunner } from '../calls/protocol-runner.service';
import { UiChatDto } from './ui-chat.dto';
import { uiChatProtocol } from './ui-chat.protocol';

/**
 * The Vercel AI SDK's chat transport (`useChat` with `DefaultChatTransport`), metered exactly
 * like POST /api/ai/stream: same admission, hold, settlement, saved exchange and abort charge.
 */
@ApiTags('ai')
@Controller('api/ai')
export class AiChatController {
  private readonly protocol: Protocol<UiChatDto>;

  constructor(
    private readonly runner: ProtocolRunner,
    chats: ChatsService,
    @Inject(aiConfig.KEY) ai: ConfigType<typeof aiConfig>,
  ) {
    this.protocol = uiChatProtocol(chats, ai.ssePingMs);
  }

  @Post('chat')
  @Endpoint({
    summary: 'Stream a reply to an AI SDK chat (useChat)',
    description: UI_CHAT_DESCRIPTION,
    access: 'session',
    scope: 'ai',
    errors: [
      {
        status: 400,
        description:
          'Invalid messages or parameters (`VALIDATION_FAILED`, also for `modelId` named ' +
          'nowhere or a remote image URL), unknown `modelId` (`UNKNOWN_MODEL`), a parameter the ' +
          'model does not accept (`UNSUPPORTED_PARAMETER`), images or plugins the model cannot ' +
          'take (`MODEL_CAPABILITY_MISSING`), or an unknown plugin (`UNKNOWN_PLUGIN`)',
      },
      402,
      {
        status: 403,
        description:
          'An API key without a scope the request needs (`INSUFFICIENT_SCOPE`: `chats:write` to ' +
          'continue an existing chat, `chats:read` for an upload not your own or ' +
          '`search_my_chats`), or a plugin that reads your private data in a chat others can ' +
          'read (`PLUGIN_NOT_ALLOWED`)',
      },
      {
        status: 404,
        description:
          "`id` is another user's chat, or an image file part names an upload you may not read (`code`: NOT_FOUND)",
      },
      {
        status: 422,
        description: "A plugin's MCP server could not list its tools (`PLUGIN_UNREACHABLE`)",
      },
      { status: 413, description: 'Messages over the size limits (`code`: PAYLOAD_TOO_LARGE)' },
      {
        status: 429,
        description:
          'Daily limit (`DAILY_LIMIT_REACHED`) or the provider rate-limits (`RATE_LIMIT`)',
      },
    ],
    body: {
      type: UiChatDto,
      example: {
        id: '6c1f1f9e-0a4e-4bd5-9a53-0d6f3b0d2c71',
        messages: [
          { id: 'msg_1', role: 'user', parts: [{ type: 'text', text: 'Plan a day in Lisbon' }] },
        ],
        trigger: 'submit-message',
        modelId: 'gpt-4o-mini',
      },
    },
  })
  @ApiUiMessageStreamResponse()
  chat(
    @CurrentUser() user: SessionUser,
    @Body() body: UiChatDto,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    return this.runner.run(this.protocol, user, body, req, res);
  }
}
