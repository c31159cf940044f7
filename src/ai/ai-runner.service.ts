import { Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { SessionUser } from '../common/auth/session-user';
import type { AppConfig } from '../config/app.config';
import type { TokenUsage } from '../credits/pricing';
import { AiService } from './ai.service';
import type { GenerateDto } from './dto/generate.dto';
import { classifyProviderError } from './provider-errors';
import { ProviderError, type StreamChunk } from './providers/model-provider';
import { type RetryOptions, withRetry } from './retry';

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
 * A metered generation on behalf of a user outside an HTTP request (scheduled tasks, issue 17):
 * the same admission, retries until the first token, settlement and saving as
 * `AiService.stream`, through its public `admit`, `fail` and `settleAndSave`. Streamed upstream,
 * so that aborting `signal` mid-reply charges what was produced, as a client abort does.
 * Throws the admission errors (INSUFFICIENT_CREDITS, DAILY_LIMIT_REACHED, NOT_FOUND, ...) and,
 * before the first token, the classified provider error with nothing charged.
 */
@Injectable()
export class AiRunner {
  private readonly retry: RetryOptions;

  constructor(
    private readonly ai: AiService,
    config: ConfigService<AppConfig, true>,
  ) {
    const { retryAttempts, retryBaseDelayMs } = config.get('ai', { infer: true });
    this.retry = { attempts: retryAttempts, baseDelayMs: retryBaseDelayMs };
  }

  async run(user: SessionUser, dto: GenerateDto, signal: AbortSignal): Promise<RunOutcome> {
    const a = await this.ai.admit(user, dto, signal);
    let iterator!: AsyncIterator<StreamChunk>;
    let first: IteratorResult<StreamChunk>;
    try {
      first = await withRetry(() => {
        iterator = a.provider.stream(a.request)[Symbol.asyncIterator]();
        return iterator.next();
      }, this.retry);
    } catch (err) {
      throw await this.ai.fail(a, err);
    }
    let text = '';
    let usage: TokenUsage | undefined;
    let interruption: unknown;
    try {
      for (let r = first; !r.done; r = await iterator.next()) {
        if (r.value.usage) usage = r.value.usage;
        if (r.value.text) text += r.value.text;
      }
    } catch (err) {
      interruption = signal.aborted
        ? 'aborted'
        : err instanceof ProviderError
          ? classifyProviderError(err)
          : err;
    }
    const settled = await this.ai.settleAndSave(a, { text, usage });
    return { text, usage: settled.usage, cost: settled.cost, chatId: a.chatId, interruption };
  }
}
