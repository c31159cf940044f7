import { Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { AppConfig } from '../config/app.config';
import { randomUUID } from 'node:crypto';
import { ChatExchanges } from '../chats/chat-exchanges.service';
import { ChatsService } from '../chats/chats.service';
import type { SessionUser } from '../common/auth/session-user';
import { CreditHoldsService } from '../credits/credit-holds.service';
import { MetricsService } from '../metrics/metrics.service';
import { span } from '../telemetry/spans';
import {
  codePoints,
  cost,
  estimate,
  estimateTokens,
  holdAmount,
  type TokenUsage,
} from '../credits/pricing';
import type { StoredPreferences } from '../users/preferences/preferences.dto';
import { PreferencesService } from '../users/preferences/preferences.service';
import type { GenerateDto, GenerateResultDto } from './dto/generate.dto';
import { IMAGE_TOKENS_WORST_CASE } from './image-tokens';
import { readInputs, requireCapability, toProviderMessages } from './message-inputs';
import { UploadImages } from '../uploads/upload-images.service';
import { ModelCatalogue, reasoningBudget } from './model-catalogue';
import { checkParameters, noModelError, resolveParameters } from './model-parameters';
import { classifyProviderError } from './provider-errors';
import { ProviderStrategy } from './provider-strategy.service';
import { type GenerateRequest, ProviderError, type StreamChunk } from './providers/model-provider';
import { type RetryOptions, withRetry } from './retry';
import { ServerTiming } from './server-timing';

// The shapes of admission and streaming live in ai.types.ts; sinks import them from here too.
export type { Admission, CallOptions, Outcome, StreamedReply, StreamSink } from './ai.types';
import type { Admission, CallOptions, Outcome, StreamedReply, StreamSink } from './ai.types';

/**
 * Metered replies (architecture "One request through the AI module"): admit (model, limits,
 * hold), call the provider with retries, then settle and save through one path for whole and
 * streamed replies alike.
 */
@Injectable()
export class AiService {
  constructor(
    private readonly catalogue: ModelCatalogue,
    private readonly strategy: ProviderStrategy,
    private readonly holds: CreditHoldsService,
    private readonly chats: ChatsService,
    private readonly exchanges: ChatExchanges,
    private readonly preferences: PreferencesService,
    config: ConfigService<AppConfig, true>,
    private readonly metrics: MetricsService,
    private readonly images: UploadImages,
  ) {
    const ai = config.get('ai', { infer: true });
    this.retry = { attempts: ai.retryAttempts, baseDelayMs: ai.retryBaseDelayMs };
  }

  private readonly retry: RetryOptions;

  /**
   * Checks and reserves before any upstream call. The effective parameters (request > chat >
   * preferences > default, issue 12 §4) are resolved first, so the hold's worst case uses the
   * effective `maxTokens` plus the model's reasoning budget. Reads: the chat (access check, which
   * brings its settings) and the caller's preferences, in parallel; `preferences` (or those the
   * session read brought, `user.preferences`) skips the latter. Throws VALIDATION_FAILED (400, `modelId` named
   * nowhere, or a value out of the model's range), UNKNOWN_MODEL (400), UNSUPPORTED_PARAMETER
   * (400), PAYLOAD_TOO_LARGE (413), NOT_FOUND (404, chat), DAILY_LIMIT_REACHED (429),
   * INSUFFICIENT_CREDITS (402); for images (issue 18) NOT_FOUND (404, an upload the caller may
   * not read), VALIDATION_FAILED (400, over 4, not an image) and MODEL_CAPABILITY_MISSING (400).
   * Each image adds its provider's worst case (IMAGE_TOKENS_WORST_CASE) to the hold.
   */
  async admit(
    user: SessionUser,
    dto: GenerateDto,
    signal?: AbortSignal,
    newChatId?: string,
    preferences?: StoredPreferences | null,
    options: CallOptions = {},
  ): Promise<Admission> {
    const inputs = readInputs(dto.messages);
    const imageIds = inputs.flatMap((m) => m.uploadIds);
    const [chat, prefs, uploads] = await Promise.all([
      dto.chatId ? this.chats.requireChatAccess(user, dto.chatId, 'read') : undefined,
      preferences !== undefined
        ? preferences
        : user.preferences !== undefined
          ? user.preferences // read with the session
          : this.preferences.stored(user.id),
      this.images.requireReadable(user.id, imageIds),
    ]);
    const effective = resolveParameters(dto, chat?.settings, prefs);
    if (!effective.modelId) throw noModelError();
    const model = this.catalogue.require(effective.modelId);
    const { values } = effective;
    checkParameters(model.id, model.parameters, values, effective.sources);
    if (imageIds.length) requireCapability(model, 'vision');
    const messages = toProviderMessages(inputs, values.systemPrompt);
    const imageTokens = imageIds.length * IMAGE_TOKENS_WORST_CASE[model.providerId];
    const budget = reasoningBudget(model);
    const hold = await this.holds.hold(
      user.id,
      holdAmount(messages, model, values.maxTokens + budget, imageTokens),
      randomUUID(),
      estimate(messages, model, imageTokens),
      user.apiKey?.id,
    );
    if (uploads.length) {
      // Bytes are read only once the hold is taken, and the hold goes back if they cannot be.
      const images = await Promise.all(
        uploads.map(async (u) => ({ mediaType: u.contentType, data: await this.images.base64(u) })),
      ).catch(async (err: unknown) => {
        await this.holds.release(hold);
        throw err;
      });
      messages.splice(
        0,
        messages.length,
        ...toProviderMessages(inputs, values.systemPrompt, images),
      );
    }
    const request: GenerateRequest = {
      model: model.id,
      messages,
      maxTokens: values.maxTokens,
      temperature: values.temperature,
      topP: values.topP,
      presencePenalty: values.presencePenalty,
      frequencyPenalty: values.frequencyPenalty,
      stop: values.stop,
      reasoningBudget: budget || undefined,
      signal,
    };
    const admission: Admission = {
      user,
      dto,
      model,
      provider: this.strategy.for(model),
      request,
      hold,
      chatId: dto.chatId ?? newChatId ?? randomUUID(),
      isNewChat: !dto.chatId,
      store: options.store ?? true,
      inputs,
      imageTokens,
    };
    this.metrics.aiAdmitted(admission);
    return admission;
  }

  /** A whole reply (spec AI rules 1, 2, 4): admit, generate with retries, settle and save. */
  async generate(
    user: SessionUser,
    dto: GenerateDto,
    timing = new ServerTiming(),
    preferences?: StoredPreferences | null,
    options?: CallOptions,
  ): Promise<GenerateResultDto> {
    const admission = await this.admit(user, dto, undefined, undefined, preferences, options);
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
    return { text: outcome.text, usage, cost: charged, chatId: admission.chatId };
  }

  /**
   * A streamed reply (spec AI rule 3, Events 4). Retries only until the first chunk; after that
   * every chunk goes to `sink` as it arrives. A cut stream (client abort or upstream error) is
   * still settled for what was produced and its partial reply saved. Errors before the sink
   * opened are thrown for the caller to answer as JSON. `newChatId` names the chat created when
   * `dto.chatId` is absent (a client-chosen id); a random id otherwise.
   */
  async stream(
    user: SessionUser,
    dto: GenerateDto,
    sink: StreamSink,
    signal: AbortSignal,
    timing = new ServerTiming(),
    newChatId?: string,
    preferences?: StoredPreferences | null,
    options?: CallOptions,
  ): Promise<void> {
    const a = await this.admit(user, dto, signal, newChatId, preferences, options);
    sink.admitted(a.chatId, timing);
    const reply = await this.streamAdmitted(a, timing, {
      onStart: () => sink.start(a.chatId, timing),
      onText: (delta) => sink.text(delta),
    });
    if (reply.interruption === undefined) {
      sink.done({ usage: reply.usage, cost: reply.cost, chatId: a.chatId });
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
    hooks: { onStart?: () => void; onText?: (delta: string) => void } = {},
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
    hooks.onStart?.();
    this.metrics.aiFirstToken(a);
    let text = '';
    let usage: TokenUsage | undefined;
    let interruption: unknown;
    try {
      for (let r = first; !r.done; r = await iterator.next()) {
        if (r.value.usage) usage = r.value.usage;
        if (r.value.text) {
          text += r.value.text;
          hooks.onText?.(r.value.text);
        }
      }
    } catch (err) {
      interruption = err instanceof ProviderError ? classifyProviderError(err) : err;
      this.metrics.aiFailed(a, interruption, err instanceof ProviderError);
    }
    const settled = await this.settleAndSave(a, { text, usage });
    return { text, usage: settled.usage, cost: settled.cost, interruption };
  }

  /**
   * The one path for money after a call: charge the reported usage (or, for a cut stream, the
   * prompt estimate plus ceil(streamed characters / 4), marked as estimated), release the rest
   * of the hold, and save the exchange (spec Limits 7), in one statement. Throws NOT_FOUND when
   * the chat was deleted meanwhile (the reply is charged all the same).
   */
  async settleAndSave(
    a: Admission,
    outcome: Outcome,
  ): Promise<{ cost: number; usage: TokenUsage }> {
    const estimated = !outcome.usage;
    const usage = outcome.usage ?? {
      promptTokens: estimateTokens(a.request.messages) + a.imageTokens,
      completionTokens: Math.ceil(codePoints(outcome.text) / 4),
    };
    const price = cost(usage, a.model);
    const description =
      `AI ${a.model.id}: ${usage.promptTokens} prompt + ${usage.completionTokens} completion tokens` +
      (estimated ? ' (estimated: stream interrupted)' : '');
    // The charge and the saved exchange are one statement (one round trip, one commit): the
    // chats module writes its part, the credits module runs it inside the settlement.
    const exchange = a.store
      ? (first: number) =>
          this.exchanges.part(
            a.user,
            {
              chatId: a.isNewChat ? undefined : a.chatId,
              newChatId: a.isNewChat ? a.chatId : undefined,
              messages: a.inputs,
              reply: outcome.text,
            },
            first,
          )
      : undefined;
    const { promptTokens, completionTokens } = usage;
    const settle = () =>
      this.holds.settle(
        a.hold,
        price,
        description,
        { modelId: a.model.id, promptTokens, completionTokens },
        exchange,
      );
    // Traces: `chats.saveExchange` is the part of the `credits.settle` statement that saves.
    const settled = await span('credits.settle', () =>
      exchange ? span('chats.saveExchange', settle) : settle(),
    );
    this.metrics.aiSettled(a, usage, settled.charged);
    if (exchange) this.exchanges.saved((settled.also as string | null) ?? null);
    return { cost: settled.charged, usage };
  }

  /** Releases the hold (nothing charged) and turns an upstream error into its API error. */
  async fail(a: Admission, err: unknown): Promise<unknown> {
    await this.holds.release(a.hold);
    const classified = err instanceof ProviderError ? classifyProviderError(err) : err;
    this.metrics.aiFailed(a, classified, err instanceof ProviderError);
    return classified;
  }
}
