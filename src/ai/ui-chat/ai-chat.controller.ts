import { Body, Controller, Post, Req, Res } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { ChatsService } from '../../chats/chats.service';
import { requireScope } from '../../common/auth/require-scope';
import { CurrentUser } from '../../common/auth/auth.decorators';
import type { SessionUser } from '../../common/auth/session-user';
import { AppError, ErrorCode } from '../../common/errors/app-error';
import { ErrorPresenter } from '../../common/errors/error-presenter';
import { arrivalOf } from '../../common/http/arrival';
import { Endpoint } from '../../common/openapi/endpoint.decorator';
import type { AppConfig } from '../../config/app.config';
import { AiService } from '../ai.service';
import { ServerTiming } from '../server-timing';
import { streamTo } from '../stream-sinks';
import { ApiUiMessageStreamResponse, UI_CHAT_DESCRIPTION } from './ui-chat-stream.dto';
import { toChatMessages, UiChatDto } from './ui-chat.dto';
import { UiMessageStreamSink } from './ui-message-stream.sink';

/**
 * The Vercel AI SDK's chat transport (`useChat` with `DefaultChatTransport`), metered exactly
 * like POST /api/ai/stream: same admission, hold, settlement, saved exchange and abort charge.
 */
@ApiTags('ai')
@Controller('api/ai')
export class AiChatController {
  private readonly pingMs: number;

  constructor(
    private readonly ai: AiService,
    private readonly chats: ChatsService,
    private readonly errors: ErrorPresenter,
    config: ConfigService<AppConfig, true>,
  ) {
    this.pingMs = config.get('ai', { infer: true }).ssePingMs;
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
  async chat(
    @CurrentUser() user: SessionUser,
    @Body() body: UiChatDto,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    const messages = toChatMessages(body.messages);
    const existing = await this.isExistingChat(user, body.id);
    // eslint-disable-next-line @typescript-eslint/no-unused-vars
    const { id, messages: _ui, trigger, messageId, ...parameters } = body;
    const dto = { ...parameters, messages, chatId: existing ? id : undefined };
    const sink = new UiMessageStreamSink(res, (err) => this.errors.present(err, req), this.pingMs);
    await streamTo(res, sink, (signal) =>
      this.ai.stream(user, dto, sink, {
        signal,
        timing: new ServerTiming(arrivalOf(req)),
        newChatId: body.id,
      }),
    );
  }

  /**
   * Whether the client's chat id names a chat the caller continues (else a new chat gets it).
   * An id of a chat the caller cannot read is 404; to an API key without `chats:write` it is
   * INSUFFICIENT_SCOPE (403), as any existing chat is (admission checks the readable ones), so
   * the key is refused alike for every chat that exists.
   */
  private async isExistingChat(user: SessionUser, id: string): Promise<boolean> {
    try {
      return (await this.chats.clientChatId(user, id)) === 'existing';
    } catch (err) {
      if (err instanceof AppError && err.code === ErrorCode.NOT_FOUND)
        requireScope(user, 'chats:write', 'an existing chat id');
      throw err;
    }
  }
}
