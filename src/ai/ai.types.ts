import type { SessionUser } from '../common/auth/session-user';
import type { OpenHold } from '../credits/credit-holds.service';
import type { TokenUsage } from '../credits/pricing';
import type { GenerateDto } from './dto/generate.dto';
import type { ModelDescriptor } from './model-catalogue';
import type { GenerateRequest, ModelProvider } from './providers/model-provider';
import type { ServerTiming } from './server-timing';
import type { InputMessage } from './message-inputs';

/** An admitted request: credits held, model and chat resolved, nothing sent upstream yet. */
export interface Admission {
  user: SessionUser;
  dto: GenerateDto;
  model: ModelDescriptor;
  provider: ModelProvider;
  request: GenerateRequest;
  hold: OpenHold;
  /** Id of the chat the exchange goes to; a new chat gets this id when it is saved. */
  chatId: string;
  isNewChat: boolean;
  /** False: settle only, save no chat (`/v1` without `store: true`, issue 14). */
  store: boolean;
  /** The request's messages as text and image upload ids (saved with the exchange). */
  inputs: InputMessage[];
  /** Prompt tokens held for the request's images (their per-provider worst case). */
  imageTokens: number;
}

/** Per-call choices of callers other than the `/api/ai` routes. */
export interface CallOptions {
  /** Save the exchange as a chat (default true). */
  store?: boolean;
}

/** Where a streamed reply goes (text/plain or SSE, see stream-sinks.ts). */
export interface StreamSink {
  /** Admission passed; the provider is about to be called. */
  admitted(chatId: string, timing: ServerTiming): void;
  /** The provider started answering: the first chunk is in hand. */
  start(chatId: string, timing: ServerTiming): void;
  text(delta: string): void;
  done(result: { usage: TokenUsage; cost: number; chatId: string }): void;
  /** A failure after the sink opened (or after admission for SSE). */
  error(err: unknown): void;
}

/** A streamed reply after settlement; `interruption` is set when it was cut. */
export interface StreamedReply {
  text: string;
  usage: TokenUsage;
  /** Credits charged. */
  cost: number;
  interruption?: unknown;
}

/** How a reply ended, for settlement. */
export interface Outcome {
  text: string;
  /** Provider-reported usage; undefined when the stream was cut before it came. */
  usage?: TokenUsage;
}
