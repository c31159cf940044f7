import type { Protocol, ProtocolCall, RecordedReply } from '../../ai';
import type { SessionUser } from '../../common/auth/session-user';
import { ValidationFailedError } from '../../common/validation/validation.pipe';
import type { ResponseCreateDto } from '../dto/responses.dto';
import { type InputItem, toResponseCall } from '../responses-input.mapper';
import {
  echoOf,
  finishedResponse,
  outputOf,
  pendingResponse,
  type ResponseObject,
  wireId,
} from '../responses.mapper';
import { ResponsesStreamSink } from '../responses-stream-sink';
import type { StoredResponses } from '../stored-responses.service';

/** A Responses call: the response it answers, and what it stored. */
interface ResponsesCall extends ProtocolCall {
  user: SessionUser;
  /** The response before its reply (id, echoed request). */
  pending: ResponseObject;
  /** The sink of a streamed call, once made. */
  sink?: ResponsesStreamSink;
  /** The finished response as stored with the settlement (`store: true`). */
  recorded?: ResponseObject;
  /** The credits charged, once settled. */
  charged?: number;
}

/** The finished response of a whole (not streamed) reply. */
const wholeResponse = (pending: ResponseObject, reply: RecordedReply) =>
  finishedResponse(
    { ...pending, model: reply.modelId },
    outputOf(reply.text, reply.toolCalls, reply.finishReason === 'length'),
    reply,
  );

/**
 * `POST /v1/responses`: OpenAI's Responses API over a metered call. `store: true` saves the
 * exchange as a chat and the response, in the settlement statement (a RecordPart), for
 * `GET /v1/responses/{response_id}` and `previous_response_id`; a settlement that charged less
 * than the price stored corrects the stored `cost` afterwards.
 */
export function responsesProtocol(
  stored: StoredResponses,
): Protocol<ResponseCreateDto, ResponsesCall> {
  return {
    toCall: async (user, body) => {
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
        ? await stored.previous(user, body.previous_response_id)
        : undefined;
      const mapped = toResponseCall(body, previous?.context);
      if (previous?.chatId) mapped.dto.chatId = previous.chatId;
      const context = [...(previous?.context ?? []), ...mapped.items];
      const call: ResponsesCall = {
        user,
        dto: mapped.dto,
        stream: !!body.stream,
        pending: pendingResponse(wireId('resp'), body.model, echoOf(body)),
        options: {
          store,
          // A wire request carries its own parameters: the caller's stored preferences do not apply.
          preferences: null,
          outputLimits: mapped.outputLimits,
          clientTools: mapped.clientTools,
          responseFormat: mapped.responseFormat,
          ...(body.models ? { models: body.models } : {}),
        },
      };
      if (store)
        call.options.record = (reply) => {
          const response = call.sink?.finish(reply) ?? wholeResponse(call.pending, reply);
          call.recorded = response;
          const items = [...context, ...(response.output as unknown as InputItem[])];
          return stored.part(user, response, items);
        };
      return call;
    },
    toReply: (reply, call) => {
      call.charged = reply.cost;
      const response =
        call.recorded ??
        wholeResponse(call.pending, { ...reply, toolCalls: reply.toolCalls ?? [] });
      return { ...response, cost: reply.cost };
    },
    sink: (res, present, call) => (call.sink = new ResponsesStreamSink(res, call.pending, present)),
    settled: async (call) => {
      const charged = call.sink ? call.sink.charged : call.charged;
      if (call.recorded && charged !== undefined)
        await stored.amendCost(call.user, call.recorded.id, call.recorded.cost ?? charged, charged);
    },
  };
}
