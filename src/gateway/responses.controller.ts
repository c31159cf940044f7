import { Body, Controller, Delete, Get, HttpCode, Param, Post, Req, Res } from '@nestjs/common';
import { ApiOkResponse, ApiParam, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { ProtocolRunner } from '../ai';
import { CurrentUser } from '../common/auth/auth.decorators';
import type { SessionUser } from '../common/auth/session-user';
import { Endpoint } from '../common/openapi/endpoint.decorator';
import {
  ApiResponsesResponse,
  ResponseDeletedDto,
  ResponseObjectDto,
} from './dto/response-object.dto';
import { ResponseCreateDto } from './dto/responses.dto';
import { responsesProtocol } from './protocols/responses.protocol';
import type { ResponseObject } from './responses.mapper';
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
  private readonly protocol: ReturnType<typeof responsesProtocol>;

  constructor(
    private readonly runner: ProtocolRunner,
    private readonly stored: StoredResponses,
  ) {
    this.protocol = responsesProtocol(stored);
  }

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
  create(
    @CurrentUser() user: SessionUser,
    @Body() body: ResponseCreateDto,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    return this.runner.run(this.protocol, user, body, req, res);
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
