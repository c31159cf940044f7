import { Body, Controller, Post, Req, Res } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import {
  ApiBearerAuth,
  ApiCookieAuth,
  ApiOkResponse,
  ApiOperation,
  ApiProduces,
  ApiTags,
} from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { ChatsService } from '../../chats/chats.service';
import { CurrentUser } from '../../common/auth/auth.decorators';
import type { SessionUser } from '../../common/auth/session-user';
import { ErrorPresenter } from '../../common/errors/error-presenter';
import { arrivalOf } from '../../common/http/arrival';
import { ApiErrors } from '../../common/openapi/api-errors';
import type { AppConfig } from '../../config/app.config';
import { AiService } from '../ai.service';
import { ServerTiming } from '../server-timing';
import { streamTo } from '../stream-sinks';
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
  @ApiBearerAuth()
  @ApiCookieAuth()
  @ApiOperation({
    summary: 'Chat reply as an AI SDK UI message stream (useChat)',
    description:
      'Speaks the AI SDK chat transport: `id` is our chat id (continued when it is yours or shared with you, created otherwise), `messages` the UI messages; the last must be a user text. Answers SSE with header `x-vercel-ai-ui-message-stream: v1`: `start` (metadata `{chatId}`), `start-step`, `text-start`, `text-delta`…, `text-end`, `finish-step`, `finish` (metadata `{chatId, usage, cost}`), `[DONE]`; or `error` {errorText} after opening.',
  })
  @ApiProduces('text/event-stream')
  @ApiOkResponse({ description: 'UI message stream (SSE), header `X-Chat-Id`' })
  @ApiErrors(400, 401, 402, 404, 413, 429, 500)
  async chat(
    @CurrentUser() user: SessionUser,
    @Body() body: UiChatDto,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    const messages = toChatMessages(body.messages);
    const existing = (await this.chats.clientChatId(user, body.id)) === 'existing';
    const { modelId, maxTokens, temperature, topP } = body;
    const dto = {
      messages,
      modelId,
      maxTokens,
      temperature,
      topP,
      chatId: existing ? body.id : undefined,
    };
    const sink = new UiMessageStreamSink(res, (err) => this.errors.present(err, req), this.pingMs);
    await streamTo(res, sink, (signal) =>
      this.ai.stream(user, dto, sink, signal, new ServerTiming(arrivalOf(req)), body.id),
    );
  }
}
