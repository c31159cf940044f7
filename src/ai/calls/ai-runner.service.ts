import { Injectable } from '@nestjs/common';
import type { SessionUser } from '../../common/auth/session-user';
import { AiService } from './ai.service';
import type { GenerateDto } from '../dto/generate.dto';
import type { TokenUsage } from '../../models/call.types';

/** How a programmatic generation ended. */
export interface RunOutcome {
  text: string;
  usage: TokenUsage;
  /** Credits charged (settled from the hold). */
  cost: number;
  chatId: string;
  /** Set when the reply was cut after it began: `signal` aborted, or the upstream failed. */
  interruption?: 'aborted' | unknown;
}

/**
 * A metered generation on behalf of a user outside an HTTP request (scheduled tasks):
 * the same admission, retries until the first token, settlement and saving as
 * `AiService.stream`, through its public `admit` and `streamAdmitted`. Streamed upstream,
 * so that aborting `signal` mid-reply charges what was produced, as a client abort does.
 * Throws the admission errors (INSUFFICIENT_CREDITS, DAILY_LIMIT_REACHED, NOT_FOUND, ...) and,
 * before the first token, the classified provider error with nothing charged.
 */
@Injectable()
export class AiRunner {
  constructor(private readonly ai: AiService) {}

  async run(user: SessionUser, dto: GenerateDto, signal: AbortSignal): Promise<RunOutcome> {
    const a = await this.ai.admit(user, dto, { signal });
    const reply = await this.ai.streamAdmitted(a);
    const cut = reply.interruption;
    return {
      text: reply.text,
      usage: reply.usage,
      cost: reply.cost,
      chatId: a.chatId,
      interruption: cut === undefined ? undefined : signal.aborted ? 'aborted' : cut,
    };
  }
}
