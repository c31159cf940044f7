import { Body, Controller, Delete, Get, HttpCode, Param, Post, Req, Res } from '@nestjs/common';
import { ApiOkResponse, ApiParam, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { AiService } from '../ai/ai.service';
import type { RecordedReply } from '../ai/ai.types';
import { ServerTiming } from '../ai/server-timing';
import { streamTo } from '../ai/stream-sinks';
import { CurrentUser } from '../common/auth/auth.decorators';
import type { SessionUser } from '../common/auth/session-user';
import { ErrorPresenter } from '../common/errors/error-presenter';
import { arrivalOf } from '../common/http/arrival';
import { Endpoint } from '../common/openapi/endpoint.decorator';
import { ValidationFailedError } from '../common/validation/validation.pipe';
import {
  ApiResponsesResponse,
  ResponseDeletedDto,
  ResponseObjectDto,
} from './dto/response-object.dto';
import { ResponseCreateDto } from './dto/responses.dto';
import { type InputItem, toResponseCall } from './responses-input.mapper';
import {
  echoOf,
  finishedResponse,
  outputOf,
  pendingResponse,
  type ResponseObject,
  wireId,
} from './responses.mapper';
import { ResponsesStreamSink } from './responses-stream-sink';
import { StoredResponses } from './stored-responses.service';

const RESPONSE_ID = {
  name: 'response_id',
  example: 'resp_0a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f6071',
  description: 'the `id` of the response',
};

const ERRORS_400 =
  'Invalid input (`param` names the item or field), unknown model (`unknown_model`), tools or ' +
  '`text.format` to a model without them (`model_capability_missing`), a field or item we ' +
  'cannot honour such as built-in tools or `background` (`unsupported_parameter`), ' +
  '`previous_response_id` without `store: true`, or naming no stored response of yours ' +
  '(`previous_response_not_found`)';

/**
 * OpenAI's Responses API (`/v1/responses`) over AiService: no metering of its own (admission,
 * hold, settlement, abort accounting as for every call). `store: true` saves the exchange as a
 * chat and the response for `GET /v1/responses/{response_id}` and `previous_response_id`.
 */
@ApiTags('openai-compatible')
@Controller('v1')
export class ResponsesController {
  constructor(
    private readonly ai: AiService,
    private readonly stored: StoredResponses,
    private readonly errors: ErrorPresenter,
  ) {}

  @Post('responses')
  @HttpCode(200)
  @Endpoint({
    summary: 'Create a model response (OpenAI Responses API)',
    description:
      'Text, function tools the client runs (`function_call` items out, `function_call_output` ' +
      'items in), structured output (`text.format`). `stream: true` answers `text/event-stream` ' +
      'with the Responses events. Metered in credits like `/api/ai/generate`; saved only with ' +
      '`store: true`.',
    access: 'session',
    scope: 'ai',
    errors: [
      { status: 400, description: ERRORS_400 },
      402,
      {
        status: 403,
        description:
          'An API key without `chats:write` continuing a stored response (`previous_response_id`), ' +
          "or naming an upload that is not the key's user's own without `chats:read` (`insufficient_scope`)",
      },
      {
        status: 404,
        description: 'An `input_image` names an upload you may not read (`not_found`)',
      },
      {
        status: 429,
        description:
          "Daily limit of the plan (`daily_limit_reached`) or of the key (`key_daily_limit_reached`), the key's requests per minute (`rate_limited`), or the provider's (`rate_limit`); see Retry-After",
      },
    ],
    body: {
      type: ResponseCreateDto,
      example: {
        model: 'gpt-4o-mini',
        instructions: 'Answer in French.',
        input: 'Say hello.',
        max_output_tokens: 100,
      },
    },
  })
  @ApiResponsesResponse()
  async create(
    @CurrentUser() user: SessionUser,
    @Body() body: ResponseCreateDto,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    const store = body.store === true;
    if (body.previous_response_id && !store)
      throw new ValidationFailedError([
        {
          property: 'store',
          constraint: 'previousResponse',
          message: 'previous_response_id needs store: true (the exchange joins the stored one)',
        },
      ]);
    // Checked before anything is read, so a malformed request touches nothing.
    toResponseCall(body, 'unread');
    const previous = body.previous_response_id
      ? await this.stored.previous(user, body.previous_response_id)
      : undefined;
    const call = toResponseCall(body, previous?.context);
    if (previous?.chatId) call.dto.chatId = previous.chatId;
    const timing = new ServerTiming(arrivalOf(req));
    const options = {
      timing,
      store,
      // A wire request carries its own parameters: the caller's stored preferences do not apply.
      preferences: null,
      outputLimits: call.outputLimits,
      clientTools: call.clientTools,
      responseFormat: call.responseFormat,
      ...(body.models ? { models: body.models } : {}),
    };
    const pending = pendingResponse(wireId('resp'), body.model, echoOf(body));
    const context = [...(previous?.context ?? []), ...call.items];
    // The stored response rides in the settlement statement (see RecordPart); `recorded` is it.
    let recorded: ResponseObject | undefined;
    const recordOf = (finish: (reply: RecordedReply) => ResponseObject) =>
      store
        ? (reply: RecordedReply) => {
            recorded = finish(reply);
            const items = [...context, ...(recorded.output as unknown as InputItem[])];
            return this.stored.part(user, recorded, items);
          }
        : undefined;
    const amend = (charged: number) =>
      recorded && this.stored.amendCost(user, recorded.id, recorded.cost ?? charged, charged);
    if (!body.stream) {
      const whole = (reply: RecordedReply) =>
        finishedResponse(
          { ...pending, model: reply.modelId },
          outputOf(reply.text, reply.toolCalls, reply.finishReason === 'length'),
          reply,
        );
      const record = recordOf(whole);
      const result = await this.ai.generate(user, call.dto, { ...options, record });
      const response = {
        ...(recorded ?? whole({ ...result, toolCalls: result.toolCalls ?? [] })),
        cost: result.cost,
      };
      await amend(result.cost);
      res.setHeader('Server-Timing', timing.header());
      res.status(200).json(response);
      return;
    }
    const sink = new ResponsesStreamSink(res, pending, (err) => this.errors.present(err, req));
    const record = recordOf((reply) => sink.finish(reply));
    await streamTo(res, sink, (signal) =>
      this.ai.stream(user, call.dto, sink, { ...options, record, signal }),
    );
    if (sink.charged !== undefined) await amend(sink.charged);
  }

  @Get('responses/:response_id')
  @Endpoint({
    summary: 'Retrieve a stored response (OpenAI Responses API)',
    description:
      'A response you created with `store: true`, as it was answered. A stored response is a ' +
      "conversation's text: an API key reads it with `chats:read`, as it reads a chat.",
    access: 'session',
    scope: 'chats:read',
    errors: [{ status: 404, description: 'No stored response of yours has that id (`not_found`)' }],
  })
  @ApiParam(RESPONSE_ID)
  @ApiOkResponse({ type: ResponseObjectDto })
  async retrieve(
    @CurrentUser() user: SessionUser,
    @Param('response_id') id: string,
  ): Promise<ResponseObject> {
    return (await this.stored.get(user, id)).body;
  }

  @Delete('responses/:response_id')
  @Endpoint({
    summary: 'Delete a stored response (OpenAI Responses API)',
    description:
      'Forgets a response stored with `store: true`: it can no longer be retrieved or continued. ' +
      'The chat its exchange was saved to stays (delete it with `DELETE /api/chats/{id}`, which ' +
      'deletes its stored responses too). An API key deletes it with `chats:write`, as it deletes a chat.',
    access: 'session',
    scope: 'chats:write',
    errors: [{ status: 404, description: 'No stored response of yours has that id (`not_found`)' }],
  })
  @ApiParam(RESPONSE_ID)
  @ApiOkResponse({ type: ResponseDeletedDto })
  async remove(
    @CurrentUser() user: SessionUser,
    @Param('response_id') id: string,
  ): Promise<ResponseDeletedDto> {
    await this.stored.delete(user, id);
    return { id, object: 'response', deleted: true };
  }
}
