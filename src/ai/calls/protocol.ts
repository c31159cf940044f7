import type { Request, Response } from 'express';
import type { SessionUser } from '../../common/auth/session-user';
import type { PresentedError } from '../../common/errors/error-presenter';
import type { CallOptions, GenerateReply, StreamSink } from '../ai.types';
import type { CallRequest } from '../../models/call.types';

/**
 * A protocol of a metered call (our `/api/ai/*`, OpenAI's Chat Completions and Responses,
 * Anthropic's Messages): a value that ProtocolRunner runs. It only maps: the request to a call
 * (`toCall`), a whole reply to its answer (`toReply`), a streamed one to its events (`sink`).
 * Admission, the upstream call, settlement and the saved exchange are AiService's, alike for all.
 */
export interface Protocol<B, C extends ProtocolCall = ProtocolCall> {
  /**
   * The call that request `body` asks for. May read what the call continues (a stored response,
   * the caller's preferences) and refuse the request (thrown: answered with its status).
   */
  toCall(user: SessionUser, body: B, req: Request): C | Promise<C>;
  /** The JSON answer (status 200) of a whole reply; absent when the protocol only streams. */
  toReply?(reply: GenerateReply, call: C): object;
  /**
   * Where a streamed reply goes; `present` says an error as the error filter would. Absent when
   * the protocol only answers whole.
   */
  sink?(res: Response, present: (err: unknown) => PresentedError, call: C): OpenableSink;
  /** After the answer of a settled call (a correction of what the protocol recorded). */
  settled?(call: C): Promise<void>;
}

/** A stream sink that tells whether it opened the answer (else an error is answered as JSON). */
export type OpenableSink = StreamSink & { opened: boolean };

/** A metered call as a protocol asks for it. */
export interface ProtocolCall {
  dto: CallRequest;
  /** How the call is made; the runner adds the request's timing and, streamed, its abort. */
  options: Omit<CallOptions, 'timing' | 'signal'>;
  /** Stream the reply into `sink`; else answer it whole with `toReply`. */
  stream: boolean;
}
