import { Inject, Injectable } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { aiConfig } from '../ai.config';
import { ChatExchanges } from '../../chats/chat-exchanges.service';
import type { SessionUser } from '../../common/auth/session-user';
import { CreditHoldsService } from '../../credits/credit-holds.service';
import { shutdownCutOf } from '../../lifecycle/open-streams';
import { chargedUsage } from './charged-usage';
import { reasoningBudget } from '../../models/model-catalogue';
import { type AbortPolicy, upstreamSignal } from './upstream-signal';
import { readChunks, type StreamHooks } from './read-chunks';
import { chargeCredits, ledgerCounts } from '../../prices/tariff';
import { MetricsService } from '../../metrics/metrics.service';
import { span } from '../../telemetry/spans';
import { AiAdmissions } from '../admission/ai-admissions.service';
import { classifyProviderError } from '../routing/provider-errors';
import { type ProviderMessage, ProviderError, type StreamChunk } from '../providers/model-provider';
import { type RetryOptions, withRetry } from '../routing/retry';
import { ServerTiming } from './server-timing';
import { doneOf, replyOf } from './reply-of';
import { runToolLoop } from './tool-loop';
import { answeringModel } from '../admission/fallback-models';
import { recordOf, savePart } from './exchange-part';
import { generationOf } from './generation-record';
import { performance } from 'node:perf_hooks';

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
} from '../ai.types';
import type {
  Admission,
  AdmitOptions,
  GenerateOptions,
  GenerateReply,
  Outcome,
  StreamedReply,
  StreamOptions,
  StreamSink,
} from '../ai.types';
import type { CallRequest, TokenUsage, ToolCall, ToolStep } from '../../models/call.types';

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
    @Inject(aiConfig.KEY) ai: ConfigType<typeof aiConfig>,
    private readonly metrics: MetricsService,
  ) {
    this.retry = { attempts: ai.retryAttempts, baseDelayMs: ai.retryBaseDelayMs };
    this.abortPolicy = { mode: ai.abortMode, drainMs: ai.abortDrainMs };
  }

  private readonly retry: RetryOptions;
  /** ABORT_MODE and ABORT_DRAIN_MS: what a call whose client left does upstream. */
  private readonly abortPolicy: AbortPolicy;

  /** See AiAdmissions.admit (the checks and the hold before any upstream call). */
  admit(user: SessionUser, dto: CallRequest, options: AdmitOptions = {}): Promise<Admission> {
    return this.admissions.admit(user, dto, options);
  }

  /** See AiAdmissions.promptTokens (`count_tokens`: the hold's prompt estimate, nothing held). */
  promptTokens(dto: CallRequest, options: AdmitOptions = {}): Promise<number> {
    return this.admissions.promptTokens(dto, options);
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
    dto: CallRequest,
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
   * every chunk goes to `sink` as it arrives, while the client is there. A cut stream (client
   * abort, upstream error, shutdown) is still settled for what was produced (after a drain,
   * ABORT_MODE) and its reply saved. Errors before the sink opened are thrown for the caller to
   * answer as JSON. `options.signal` is the client's abort; the other options are those of
   * CallOptions.
   */
  async stream(
    user: SessionUser,
    dto: CallRequest,
    sink: StreamSink,
    options: StreamOptions,
  ): Promise<void> {
    const { timing = new ServerTiming(), ...admitOptions } = options;
    const { signal } = options;
    const a = await this.admit(user, dto, admitOptions);
    sink.admitted(a.chatId, timing);
    // A drain after the client left goes on reading; nothing more is written to it.
    const hooks = {
      onStart: (modelId: string) => sink.start(a.chatId, timing, modelId),
      onText: (delta: string) => signal.aborted || sink.text(delta),
      // Client tools: each call goes to the sink when whole (the tool loop shows its own).
      onToolCall: (call: ToolCall) => signal.aborted || sink.toolCall?.(call),
      onToolResult: sink.toolResult?.bind(sink),
    };
    const reply = a.toolBox
      ? await runToolLoop(this, a, timing, hooks)
      : await this.streamAdmitted(a, timing, hooks);
    if (reply.interruption === undefined) {
      sink.done(doneOf(a, reply));
    } else if (!signal.aborted && !shutdownCutOf(signal)?.aborted) {
      // (A stream cut by shutdown is told so by streamTo.)
      sink.error(reply.interruption);
    }
  }

  /**
   * Streams an admitted request to its end: the provider is called with retries until the first
   * chunk (a failure before it releases the hold and throws the classified error); then `onStart`,
   * each text delta to `onText`, and whatever was produced is settled and saved, also when the
   * reply is cut (`interruption`: the classified provider error, or the abort). When the caller's
   * signal (`a.request.signal`: the client, a task's cancel) aborts, the provider call drains or
   * stops as ABORT_MODE says (upstreamSignal), and the reply ends with `interruption` set either
   * way, so no tool runs after it. Shared by `stream` and by generations outside a request
   * (AiRunner, scheduled tasks).
   */
  async streamAdmitted(
    a: Admission,
    timing = new ServerTiming(),
    hooks: StreamHooks = {},
  ): Promise<StreamedReply> {
    const client = a.request.signal;
    a.trace.streamed = true;
    const upstream = upstreamSignal(client, this.abortPolicy);
    const request = { ...a.request, signal: upstream.signal };
    let iterator!: AsyncIterator<StreamChunk>;
    let first: IteratorResult<StreamChunk>;
    try {
      first = await timing.upstream(() =>
        span('ai.provider.call', () =>
          withRetry(() => {
            iterator = a.provider.stream(request)[Symbol.asyncIterator]();
            return iterator.next();
          }, this.retry),
        ),
      );
    } catch (err) {
      upstream.dispose();
      // A drain that ran out before the first chunk: a reasoning model may have spent its budget;
      // any other model produced nothing, and a failure before any output charges nothing.
      if (upstream.drainTimedOut() && reasoningBudget(a.model) > 0)
        await this.settleAndSave({ ...a, store: false }, cutOff());
      throw await this.fail(a, err);
    }
    a.trace.firstTokenAt = performance.now();
    const modelId = first.done ? undefined : first.value.modelId;
    const answered = answeringModel(a, modelId);
    hooks.onStart?.(modelId ?? a.model.id);
    this.metrics.aiFirstToken(a, answered);
    const read = await readChunks(first, iterator, hooks).finally(() => upstream.dispose());
    const { text, usage, toolCalls } = read;
    let interruption: unknown;
    if (read.cut) {
      const err = read.cut.error;
      interruption = err instanceof ProviderError ? classifyProviderError(err) : err;
      const providerError = err instanceof ProviderError;
      this.metrics.aiFailed(a, interruption, { providerError, model: answered });
    } else if (client?.aborted) {
      // Drained to the end after the client left: charged its usage, but it ends here.
      interruption = client.reason ?? 'aborted';
      this.metrics.aiFailed(a, interruption, { providerError: false, model: answered });
    }
    // A cut reply runs no tools: its calls may be incomplete.
    const calls = interruption === undefined ? toolCalls : [];
    const produced = toolCalls.length ? { producedCalls: toolCalls } : {};
    const drain = { clientLeft: !!client?.aborted, drainTimedOut: upstream.drainTimedOut() };
    const finishReason = read.finish ?? (calls.length ? 'tool_calls' : 'stop');
    const ended = interruption === undefined ? { finishReason } : { cut: true };
    const outcome = { text, usage, toolCalls: calls, modelId, ...produced, ...drain, ...ended };
    const settled = await this.settleAndSave(a, outcome);
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
   * The one path for money after a call: charge the reported usage (or, for a cut stream, an
   * estimate marked as such, see chargedUsage), release the rest of the hold, and save the
   * exchange (spec Limits 7) with the protocol's record of a whole reply (`a.record`), in one
   * statement. Throws NOT_FOUND when the chat was deleted meanwhile (the reply is charged all
   * the same, and nothing is recorded).
   */
  async settleAndSave(
    a: Admission,
    outcome: Outcome,
  ): Promise<{ cost: number; usage: TokenUsage }> {
    // The model that answered is the one charged (a fallback's price when one did).
    const model = answeringModel(a, outcome.modelId);
    const { usage, note } = chargedUsage(a, outcome, model);
    // The tariff chosen at admission: a price changed since does not touch this call.
    const tariff = a.tariffs[model.id];
    const price = chargeCredits(usage, tariff);
    const description =
      `AI ${model.id}: ${usage.promptTokens} prompt + ${usage.completionTokens} completion tokens` +
      note;
    const charge = {
      cost: price,
      description,
      usage: { modelId: model.id, ...ledgerCounts(usage, tariff) },
      generation: generationOf(a, outcome, { model, usage, tariff }),
    };
    if (!a.store) {
      const settled = await span('credits.settle', () => this.holds.settle(a.hold, charge));
      this.metrics.aiSettled(a, { answered: model, usage, charged: settled.charged });
      return { cost: settled.charged, usage };
    }
    // The charge and the saved exchange are one statement (one round trip, one commit): the
    // chats module writes its part, the credits module runs it inside the settlement. Traces:
    // `chats.saveExchange` is the part of the `credits.settle` statement that saves.
    const record = recordOf(a, outcome, { modelId: model.id, usage, cost: price });
    const saveExchange = savePart(this.exchanges, a, outcome, record);
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

/** The outcome of a drain that ran out before the first chunk: nothing streamed, no usage. */
function cutOff(): Outcome {
  return { text: '', clientLeft: true, drainTimedOut: true };
}
