import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { Request, Response } from 'express';
import type { SessionUser } from '../../common/auth/session-user';
import { ErrorPresenter } from '../../common/errors/error-presenter';
import { arrivalOf } from '../../common/http/arrival';
import { AiService } from './ai.service';
import type { Protocol, ProtocolCall } from './protocol';
import { ServerTiming } from './server-timing';
import { streamTo } from './stream-sinks';

/**
 * Runs one request of a protocol (see Protocol), the same way for every protocol: the call it
 * asks for, timed from the request's arrival (`Server-Timing`); a whole reply is generated and
 * answered as JSON with status 200; a streamed one goes to the protocol's sink while the client
 * is there (a failure before the sink opened is thrown, answered by the error filter). Then
 * the protocol's `settled`, if any. Every answer names its (first) model call's generation id in
 * `X-Generation-Id`; the protocol reads it as `call.options.generationId`.
 */
@Injectable()
export class ProtocolRunner {
  constructor(
    private readonly ai: AiService,
    private readonly errors: ErrorPresenter,
  ) {}

  async run<B, C extends ProtocolCall>(
    protocol: Protocol<B, C>,
    user: SessionUser,
    body: B,
    req: Request,
    res: Response,
  ): Promise<void> {
    const timing = new ServerTiming(arrivalOf(req));
    const call = await protocol.toCall(user, body, req);
    // The generation id is minted before the call, so every answer can name it at once; a
    // request refused at admission leaves no record under it.
    const generationId = call.options.generationId ?? randomUUID();
    call.options = { ...call.options, generationId };
    res.setHeader('X-Generation-Id', generationId);
    if (call.stream) {
      if (!protocol.sink)
        throw new TypeError('this protocol answers whole: its call cannot stream');
      const sink = protocol.sink(res, (err) => this.errors.present(err, req), call);
      await streamTo(res, sink, (signal) =>
        this.ai.stream(user, call.dto, sink, { ...call.options, timing, signal }),
      );
    } else {
      // Checked before the call: a whole reply is never generated (and charged) unanswerable.
      const toReply = protocol.toReply;
      if (!toReply) throw new TypeError('this protocol streams: its call cannot be whole');
      const reply = await this.ai.generate(user, call.dto, { ...call.options, timing });
      const answer = toReply(reply, call);
      res.setHeader('Server-Timing', timing.header());
      res.status(200).json(answer);
    }
    await protocol.settled?.(call);
  }
}
