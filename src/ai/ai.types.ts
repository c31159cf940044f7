import type { CallTrace } from '../generations/generation.types';
import type { SessionUser } from '../common/auth/session-user';
import type { OpenHold } from '../credits/credit-holds.service';
import type { ModelDescriptor } from '../models/model-catalogue';
import type { GenerateRequest, ModelProvider } from './providers/model-provider';
import type { ServerTiming } from './calls/server-timing';
import type { InputMessage } from './admission/message-inputs';
import type { ToolBox, ToolResult } from '../plugins/tool.types';
import type { StoredPreferences } from '../users/preferences/preferences.dto';
import type { ParameterName } from '../models/dto/model-parameters.dto';
import type { PlanOutputLimits } from './admission/output-limits';
import type { ClientTools, ResponseFormat } from './providers/client-tools';
import type { StatementPart } from '../database/statement-part';
import type { Tariff } from '../prices/tariff';
import type {
  CallRequest,
  FinishReason,
  TokenUsage,
  ToolCall,
  ToolStep,
} from '../models/call.types';

/** An admitted request: credits held, model and chat resolved, nothing sent upstream yet. */
export interface Admission {
  user: SessionUser;
  dto: CallRequest;
  model: ModelDescriptor;
  /**
   * The models tried, in order, when every upstream of `model` failed with a retryable error
   * (the request's `models`, else the catalogue's `fallbacks`); the hold covers the dearest.
   */
  fallbacks: ModelDescriptor[];
  /**
   * The price of `model` and of each fallback, by model id, chosen at admission (the price
   * version in force then, and the caller's plan's markup): the settlement charges the answering
   * model's, so a price change after admission does not touch this call.
   */
  tariffs: Record<string, Tariff>;
  /** `model` over its upstreams, then the fallbacks (see RoutedProvider). */
  provider: ModelProvider;
  request: GenerateRequest;
  hold: OpenHold;
  /** The call's timings and upstreams tried, for its generation record (id: `hold.requestId`). */
  trace: CallTrace;
  /** Id of the chat the exchange goes to; a new chat gets this id when it is saved. */
  chatId: string;
  isNewChat: boolean;
  /** False: settle only, save no chat (`/v1` without `store: true`). */
  store: boolean;
  /** The request's messages as text and image upload ids (saved with the exchange). */
  inputs: InputMessage[];
  /** Number of images the request sends (a fallback's hold prices them for its provider). */
  imageCount: number;
  /** Prompt tokens held for the client tools' JSON (definitions, schema, earlier calls). */
  toolTokens: number;
  /** The tools of the request's plugins; the model call is one step of a loop. */
  toolBox?: ToolBox;
  /**
   * Later steps of a tool loop: the chat exists; save only `steps` (the previous call's tool
   * results) and this call's reply, not the request's messages again.
   */
  continuation?: { steps: ToolStep[] };
  /**
   * Parameters inherited from the chat's settings or the preferences that the model does not
   * take: not sent, and listed in the answer (`skippedParameters`, only when not empty).
   */
  skippedParameters: ParameterName[];
  /** The protocol's own row, written with the saved exchange (see RecordPart). */
  record?: RecordPart;
}

/** A whole reply as a protocol records it, before its settlement (`cost`: the price asked). */
export interface RecordedReply {
  /** Catalogue id of the model that answered. */
  modelId: string;
  text: string;
  toolCalls: ToolCall[];
  finishReason: FinishReason;
  usage: TokenUsage;
  cost: number;
}

/**
 * A protocol's own record of a whole reply (the stored `/v1/responses` object), written in the
 * settlement statement beside the saved exchange, so that the row, the charge and the exchange
 * commit together and nothing is written after the charge. Called only for a call that saves
 * its exchange (`store`), runs no plugins and was not cut. The part numbers its placeholders
 * from `first`; `chatId` is an SQL expression of the saved chat's id, NULL when the chat is gone
 * (the part then writes nothing).
 */
export type RecordPart = (reply: RecordedReply) => (first: number, chatId: string) => StatementPart;

/**
 * How a metered call is made, beside who asks (`user`) and what (`dto`); every field optional.
 * `AdmitOptions`, `GenerateOptions` and `StreamOptions` pick the fields each entry point uses.
 */
export interface CallOptions {
  /** Aborts the upstream call (the client went away, a task was cancelled). */
  signal?: AbortSignal;
  /** The request's Server-Timing (admission, upstream); a fresh one when absent. */
  timing?: ServerTiming;
  /**
   * Id of the chat created when `dto.chatId` is absent (a client-chosen id, as the UI chat route
   * sends); a random id when absent too.
   */
  newChatId?: string;
  /**
   * The caller's stored preferences when the caller already has them; `null` applies none. When
   * absent, admission takes those the session read brought, else reads them (one query).
   */
  preferences?: StoredPreferences | null;
  /** Save the exchange as a chat (default true); false settles only (`/v1` without `store`). */
  store?: boolean;
  /**
   * Absent: the spec's output limit (MAX_OUTPUT_TOKENS within the model's maximum, default 1000).
   * `{by: 'plan', param}`: the wire protocols' (the plan's cap within the model's maximum,
   * default 4096), a refusal naming `param`.
   */
  outputLimits?: PlanOutputLimits;
  /**
   * Tools the client runs (wire protocols): offered to the model, its calls returned, never run.
   * Needs the model's `tools` capability (else 400 MODEL_CAPABILITY_MISSING); not with plugins.
   */
  clientTools?: ClientTools;
  /** The answer's format; needs the `structured_output` capability (else 400). */
  responseFormat?: ResponseFormat;
  /**
   * The request's fallback models (the `/v1` wire's `models`, less the requested model), tried
   * in order after it; replaces the catalogue's `fallbacks`. Each must be an available chat
   * model (else 400 UNKNOWN_MODEL); ones lacking what the call needs are skipped.
   */
  models?: string[];
  /**
   * The request enables extended thinking (Anthropic's `thinking`): needs the model's `reasoning`
   * capability (else 400 MODEL_CAPABILITY_MISSING, `param: "thinking"`).
   */
  thinking?: boolean;
  /** The protocol's record of the reply, written with the exchange (needs `store`). */
  record?: RecordPart;
  /**
   * The first model call's generation id (a UUID, minted before the call so it can be answered
   * at once, `X-Generation-Id`); a random one when absent. Later calls of a tool loop get their own.
   */
  generationId?: string;
}

/** Options of `admit`: no timing (the caller times the call it makes with the admission). */
export type AdmitOptions = Omit<CallOptions, 'timing'>;

/** Options of `generate`: a whole reply takes no abort signal and no client-chosen chat id. */
export type GenerateOptions = Pick<
  CallOptions,
  | 'timing'
  | 'preferences'
  | 'store'
  | 'outputLimits'
  | 'clientTools'
  | 'responseFormat'
  | 'models'
  | 'record'
  | 'generationId'
>;

/** Options of `stream`: `signal` is required (a cut stream is settled for what was produced). */
export type StreamOptions = CallOptions & { signal: AbortSignal };

/** Where a streamed reply goes (text/plain or SSE, see stream-sinks.ts). */
export interface StreamSink {
  /** Admission passed; the provider is about to be called. */
  admitted(chatId: string, timing: ServerTiming): void;
  /**
   * The provider started answering: the first chunk is in hand. `modelId`: the catalogue id of
   * the model answering (a fallback's when the requested model's upstreams all failed).
   */
  start(chatId: string, timing: ServerTiming, modelId: string): void;
  text(delta: string): void;
  /** The model asked for a tool; sinks that cannot show it ignore it. */
  toolCall?(call: ToolCall): void;
  /** A tool's result, as `{id, name, ok, summary}`. */
  toolResult?(call: ToolCall, result: ToolResult): void;
  done(result: {
    /** Catalogue id of the model that answered (the last call's, in a tool loop). */
    modelId: string;
    usage: TokenUsage;
    cost: number;
    chatId: string;
    modelCalls?: number;
    stopReason?: 'stop' | 'max_tool_steps';
    /** Why the (last) model call ended; `tool_calls`: the client's tools were called. */
    finishReason: FinishReason;
    /** The client tools the model called, in order (also given one by one to `toolCall`). */
    toolCalls?: ToolCall[];
    /** Inherited parameters the model does not take, passed over; absent when none. */
    skippedParameters?: ParameterName[];
  }): void;
  /** A failure after the sink opened (or after admission for SSE). */
  error(err: unknown): void;
}

/** A streamed reply after settlement; `interruption` is set when it was cut. */
export interface StreamedReply {
  /** Catalogue id of the model that answered. */
  modelId: string;
  text: string;
  usage: TokenUsage;
  /** Credits charged. */
  cost: number;
  interruption?: unknown;
  /** Tools the model asked for (tool loop; none when cut). */
  toolCalls?: ToolCall[];
  /** Why the reply ended (`stop` when cut). */
  finishReason: FinishReason;
}

/** How a reply ended, for settlement. */
export interface Outcome {
  text: string;
  /** Provider-reported usage; undefined when the stream was cut before it came. */
  usage?: TokenUsage;
  /** Tools the model asked for; saved on the reply's message (`tool.calls`). */
  toolCalls?: ToolCall[];
  /** Why the reply ended, when known. */
  finishReason?: FinishReason;
  /** Catalogue id of the model that answered, when not the admitted one (a fallback). */
  modelId?: string;
  /**
   * A cut stream: the whole tool calls it produced before the cut (not saved, not run), whose
   * arguments count toward the estimated completion tokens.
   */
  producedCalls?: ToolCall[];
  /** The client went away before the reply ended (its usage then read by a drain, if any). */
  clientLeft?: boolean;
  /** The reply was cut (client gone, upstream error, shutdown): no protocol records it. */
  cut?: boolean;
  /** The drain after the client left reached ABORT_DRAIN_MS without the usage (see chargedUsage). */
  drainTimedOut?: boolean;
}

/** What `AiService.generate` answers: the API's result plus, for the wire protocols, why it ended. */
export type GenerateReply = import('./dto/generate.dto').GenerateResultDto & {
  finishReason: FinishReason;
  /** The client tools the model called, in order (ids: the provider's, ours for Gemini). */
  toolCalls?: ToolCall[];
};
