import { Injectable } from '@nestjs/common';
import type { WireGenerateDto } from './client-tools';
import { ConfigService } from '@nestjs/config';
import type { AppConfig } from '../config/app.config';
import { ChatExchanges } from '../chats/chat-exchanges.service';
import type { ToolStep } from '../chats/chat-exchange.sql';
import type { SessionUser } from '../common/auth/session-user';
import { CreditHoldsService } from '../credits/credit-holds.service';
import { cost, type CreditPricing, type TokenUsage } from '../credits/pricing';
import { promptTextTokens, textTokens } from '../models/token-estimate';
import { ledgerCounts } from '../credits/token-pricing';
import { MetricsService } from '../metrics/metrics.service';
import type { ToolCall } from '../plugins/tool.types';
import { span } from '../telemetry/spans';
import { AiAdmissions } from './ai-admissions.service';
import { classifyProviderError } from './provider-errors';
import { type ProviderMessage, ProviderError, type StreamChunk } from './providers/model-provider';
import { type RetryOptions, withRetry } from './retry';
import { ServerTiming } from './server-timing';
import { doneOf, replyOf } from './reply-of';
import { runToolLoop } from './tool-loop';
import { answeringModel } from './fallback-models';
import { exchangePart } from './exchange-part';

// The shapes of admission and streaming live in ai.types.ts; sinks import them from here too.
export type {
  Admission,
  AdmitOptions,
  CallOptions,
  GenerateOptions,
  GenerateReply,
  Outcome,
  StreamedReply,
  StreamOptions,
  StreamSink,
} from './ai.types';
import type {
  Admission,
  AdmitOptions,
  GenerateOptions,
  GenerateReply,
  Outcome,
  StreamedReply,
  StreamOptions,
  StreamSink,
} from './ai.types';

/**
 * Metered replies (architecture "One request through the AI module"): admit (model, limits,
 * hold), call the provider with retries, then settle and save through one path for whole and
 * streamed replies alike.
 */
@Injectable()
export class AiService {
  constructor(
    private readonly admissions: AiAdmissions,
    private readonly holds: CreditHoldsService,
    private readonly exchanges: ChatExchanges,
    config: ConfigService<AppConfig, true>,
    private readonly metrics: MetricsService,
  ) {
    const ai = config.get('ai', { infer: true });
    this.retry = { attempts: ai.retryAttempts, baseDelayMs: ai.retryBaseDelayMs };
    this.pricing = config.get('credits', { infer: true }).pricing;
  }

  private readonly retry: RetryOptions;
  /** CREDIT_PRICING and CREDIT_MARKUP: how `cost` prices a call's usage. */
  private readonly pricing: CreditPricing;

  /** See AiAdmissions.admit (the checks and the hold before any upstream call). */
  admit(user: SessionUser, dto: WireGenerateDto, options: AdmitOptions = {}): Promise<Admission> {
    return this.admissions.admit(user, dto, options);
  }

  /** See ProviderStrategy.refreshUpstreams: before a protocol requires a model by its id. */
  refreshModels(): Promise<void> {
    return this.admissions.refreshModels();
  }

  /** See AiAdmissions.admitNext (the next call of a tool loop). */
  admitNext(a: Admission, messages: ProviderMessage[], steps: ToolStep[]): Promise<Admission> {
    return this.admissions.admitNext(a, messages, steps);
  }

  /**
   * A whole reply (spec AI rules 1, 2, 4): admit, generate with retries, settle and save.
   * `options.timing` collects the Server-Timing entries. Throws the admission errors (see
   * AiAdmissions.admit) and, with nothing charged, the classified provider error.
   */
  async generate(
    user: SessionUser,
    dto: WireGenerateDto,
    options: GenerateOptions = {},
  ): Promise<GenerateReply> {
    const { timing = new ServerTiming(), ...admitOptions } = options;
    const admission = await this.admit(user, dto, admitOptions);
    if (admission.toolBox) {
      const loop = await runToolLoop(this, admission, timing, {});
      if (loop.interruption !== undefined) throw loop.interruption;
      return replyOf(admission, loop);
    }
    let outcome: Outcome;
    try {
      outcome = await timing.upstream(() =>
        span('ai.provider.call', () =>
          withRetry(() => admission.provider.generate(admission.request), this.retry),
        ),
      );
    } catch (err) {
      throw await this.fail(admission, err);
    }
    const { cost: charged, usage } = await this.settleAndSave(admission, outcome);
    return replyOf(admission, {
      ...outcome,
      modelId: answeringModel(admission, outcome.modelId).id,
      usage,
      cost: charged,
    });
  }

  /**
   * A streamed reply (spec AI rule 3, Events 4). Retries only until the first chunk; after that
   * every chunk goes to `sink` as it arrives. A cut stream (client abort or upstream error) is
   * still settled for what was produced and its partial reply saved. Errors before the sink
   * opened are thrown for the caller to answer as JSON. `options.signal` is the client's abort;
   * the other options are those of CallOptions.
   */
  async stream(
    user: SessionUser,
    dto: WireGenerateDto,
    sink: StreamSink,
    options: StreamOptions,
  ): Promise<void> {
    const { timing = new ServerTiming(), ...admitOptions } = options;
    const { signal } = options;
    const a = await this.admit(user, dto, admitOptions);
    sink.admitted(a.chatId, timing);
    const hooks = {
      onStart: (modelId: string) => sink.start(a.chatId, timing, modelId),
      // Client tools: each call goes to the sink when whole (the tool loop shows its own).
      onText: (delta: string) => sink.text(delta),
      onToolCall: (call: ToolCall) => sink.toolCall?.(call),
      onToolResult: sink.toolResult?.bind(sink),
    };
    const reply = a.toolBox
      ? await runToolLoop(this, a, timing, hooks)
      : await this.streamAdmitted(a, timing, hooks);
    if (reply.interruption === undefined) {
      sink.done(doneOf(a, reply));
    } else if (!signal.aborted) {
      sink.error(reply.interruption);
    }
  }

  /**
   * Streams an admitted request to its end: the provider is called with retries until the first
   * chunk (a failure before it releases the hold and throws the classified error); then `onStart`,
   * each text delta to `onText`, and whatever was produced is settled and saved, also when the
   * reply is cut (`interruption`: the classified provider error, or the abort). Shared by
   * `stream` and by generations outside a request (AiRunner, scheduled tasks).
   */
  async streamAdmitted(
    a: Admission,
    timing = new ServerTiming(),
    hooks: {
      /** The first chunk is in hand; `modelId`: the catalogue id of the model answering. */
      onStart?: (modelId: string) => void;
      onText?: (delta: string) => void;
      onToolCall?: (call: ToolCall) => void;
    } = {},
  ): Promise<StreamedReply> {
    let iterator!: AsyncIterator<StreamChunk>;
    let first: IteratorResult<StreamChunk>;
    try {
      first = await timing.upstream(() =>
        span('ai.provider.call', () =>
          withRetry(() => {
            iterator = a.provider.stream(a.request)[Symbol.asyncIterator]();
            return iterator.next();
          }, this.retry),
        ),
      );
    } catch (err) {
      throw await this.fail(a, err);
    }
    const modelId = first.done ? undefined : first.value.modelId;
    const answered = answeringModel(a, modelId);
    hooks.onStart?.(modelId ?? a.model.id);
    this.metrics.aiFirstToken(a, answered);
    let text = '';
    let usage: TokenUsage | undefined;
    let interruption: unknown;
    const toolCalls: ToolCall[] = [];
    let finish: StreamedReply['finishReason'] | undefined;
    try {
      for (let r = first; !r.done; r = await iterator.next()) {
        if (r.value.usage) usage = r.value.usage;
        if (r.value.finishReason) finish = r.value.finishReason;
        if (r.value.toolCall) {
          toolCalls.push(r.value.toolCall);
          hooks.onToolCall?.(r.value.toolCall);
        }
        if (r.value.text) {
          text += r.value.text;
          hooks.onText?.(r.value.text);
        }
      }
    } catch (err) {
      interruption = err instanceof ProviderError ? classifyProviderError(err) : err;
      this.metrics.aiFailed(a, interruption, {
        providerError: err instanceof ProviderError,
        model: answered,
      });
    }
    // A cut reply runs no tools: its calls may be incomplete.
    const calls = interruption === undefined ? toolCalls : [];
    const produced = toolCalls.length ? { producedCalls: toolCalls } : {};
    const outcome = { text, usage, toolCalls: calls, modelId, ...produced };
    const settled = await this.settleAndSave(a, outcome);
    const finishReason = finish ?? (calls.length ? 'tool_calls' : 'stop');
    return {
      modelId: answered.id,
      text,
      usage: settled.usage,
      cost: settled.cost,
      interruption,
      toolCalls: calls,
      finishReason: interruption === undefined ? finishReason : 'stop',
    };
  }

  /**
   * The one path for money after a call: charge the reported usage (or, for a cut stream, the
   * hold's prompt estimate plus the streamed text counted the same way, promptTextTokens and
   * textTokens, marked as estimated), release the rest
   * of the hold, and save the exchange (spec Limits 7), in one statement. Throws NOT_FOUND when
   * the chat was deleted meanwhile (the reply is charged all the same).
   */
  async settleAndSave(
    a: Admission,
    outcome: Outcome,
  ): Promise<{ cost: number; usage: TokenUsage }> {
    const estimated = !outcome.usage;
    const usage = outcome.usage ?? {
      promptTokens: promptTextTokens(a.request.messages) + a.imageTokens + a.toolTokens,
      completionTokens: textTokens(outcome.text + JSON.stringify(outcome.producedCalls ?? [])),
    };
    // The model that answered is the one charged (a fallback's price when one did).
    const model = answeringModel(a, outcome.modelId);
    const price = cost(usage, model, this.pricing);
    const description =
      `AI ${model.id}: ${usage.promptTokens} prompt + ${usage.completionTokens} completion tokens` +
      (estimated ? ' (estimated: stream interrupted)' : '');
    const charge = {
      cost: price,
      description,
      usage: { modelId: model.id, ...ledgerCounts(usage, model, this.pricing) },
    };
    if (!a.store) {
      const settled = await span('credits.settle', () => this.holds.settle(a.hold, charge));
      this.metrics.aiSettled(a, { answered: model, usage, charged: settled.charged });
      return { cost: settled.charged, usage };
    }
    // The charge and the saved exchange are one statement (one round trip, one commit): the
    // chats module writes its part, the credits module runs it inside the settlement. Traces:
    // `chats.saveExchange` is the part of the `credits.settle` statement that saves.
    const saveExchange = (first: number) => exchangePart(this.exchanges, a, outcome, first);
    const settled = await span('credits.settle', () =>
      span('chats.saveExchange', () => this.holds.settleWith(a.hold, charge, saveExchange)),
    );
    this.metrics.aiSettled(a, { answered: model, usage, charged: settled.charged });
    this.exchanges.saved(settled.partResult ?? null);
    return { cost: settled.charged, usage };
  }

  /** Releases the hold (nothing charged) and turns an upstream error into its API error. */
  async fail(a: Admission, err: unknown): Promise<unknown> {
    await this.holds.release(a.hold);
    const classified = err instanceof ProviderError ? classifyProviderError(err) : err;
    this.metrics.aiFailed(a, classified, { providerError: err instanceof ProviderError });
    return classified;
  }
}
