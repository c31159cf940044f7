import { Body, Controller, Get, HttpCode, Post, Req, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiCookieAuth, ApiOkResponse, ApiProduces, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { ConfigService } from '@nestjs/config';
import type { AppConfig } from '../config/app.config';
import { CurrentUser, Public } from '../common/auth/auth.decorators';
import type { SessionUser } from '../common/auth/session-user';
import { ErrorPresenter } from '../common/errors/error-presenter';
import { ApiErrors } from '../common/openapi/api-errors';
import { AiService } from './ai.service';
import { GenerateDto, GenerateResultDto } from './dto/generate.dto';
import { ModelCatalogue, type ModelDescriptor } from './model-catalogue';
import { arrivalOf } from '../common/http/arrival';
import { ServerTiming } from './server-timing';
import { SseStreamSink, streamTo, TextStreamSink } from './stream-sinks';

/** Spec "AI", envelope C. Replies carry `Server-Timing` (our code vs upstream). */
@ApiTags('ai')
@Controller('api/ai')
export class AiController {
  constructor(
    private readonly ai: AiService,
    private readonly catalogue: ModelCatalogue,
    private readonly errors: ErrorPresenter,
    config: ConfigService<AppConfig, true>,
  ) {
    this.pingMs = config.get('ai', { infer: true }).ssePingMs;
  }

  private readonly pingMs: number;

  @Public()
  @Get('models')
  @ApiOkResponse({
    description:
      '`{models: [{id, name, providerId, maxTokens, costPerToken, description, inputPrice, outputPrice, available}]}`',
  })
  models(): { models: ModelDescriptor[] } {
    return { models: this.catalogue.list() };
  }

  @Post('generate')
  @HttpCode(200)
  @ApiBearerAuth()
  @ApiCookieAuth()
  @ApiOkResponse({ type: GenerateResultDto })
  @ApiErrors(400, 401, 402, 404, 413, 429, 500)
  async generate(
    @CurrentUser() user: SessionUser,
    @Body() dto: GenerateDto,
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
  ): Promise<GenerateResultDto> {
    const timing = new ServerTiming(arrivalOf(req));
    const result = await this.ai.generate(user, dto, timing);
    res.setHeader('Server-Timing', timing.header());
    return result;
  }

  @Post('stream')
  @ApiBearerAuth()
  @ApiCookieAuth()
  @ApiProduces('text/plain', 'text/event-stream')
  @ApiOkResponse({
    description:
      'Incremental text (`text/plain`), or with `Accept: text/event-stream` SSE events `delta` {text}, `done` {usage, cost, chatId}, `error` {error, code}. Header `X-Chat-Id`.',
  })
  @ApiErrors(400, 401, 402, 404, 413, 429, 500)
  async stream(
    @CurrentUser() user: SessionUser,
    @Body() dto: GenerateDto,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    const sse = (req.headers.accept ?? '').includes('text/event-stream');
    const present = (err: unknown) => this.errors.present(err, req);
    const sink = sse
      ? new SseStreamSink(res, present, this.pingMs)
      : new TextStreamSink(res, present);
    await streamTo(res, sink, (signal) =>
      this.ai.stream(user, dto, sink, signal, new ServerTiming(arrivalOf(req))),
    );
  }
}
