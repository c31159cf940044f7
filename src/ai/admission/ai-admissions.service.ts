import { Inject, Injectable, Logger } from '@nestjs/common';
import { checkClientTools, checkThinking, clientToolTokens } from './client-tools-admission';
import type { ConfigType } from '@nestjs/config';
import { appSettingsConfig } from '../../config/app-settings.config';
import { CreditPrices } from '../../credits/credit-prices';
import { Clock } from '../../common/clock/clock';
import { randomUUID } from 'node:crypto';
import { newTrace } from '../../generations/generation.types';
import type { SessionUser } from '../../common/auth/session-user';
import { CreditHoldsService, type OpenHold } from '../../credits/credit-holds.service';
import type { CreditPricing } from '../../credits/pricing';
import { PriceBook } from '../../prices/price-book.service';
import type { Tariff } from '../../prices/tariff';
import { MetricsService } from '../../metrics/metrics.service';
import { UploadImages } from '../../uploads/upload-images.service';
import { AdmissionContext } from './admission-context';
import { fallbacksNeeding, requestedFallbacks, worstCase } from './fallback-models';
import type { Admission, AdmitOptions } from '../ai.types';
import { inputPromptTokens } from './prompt-tokens';
import { readInputs, requireCapability, toProviderMessages } from './message-inputs';
import {
  type ModelDescriptor,
  ModelCatalogue,
  reasoningBudget,
} from '../../models/model-catalogue';
import { fitParameters, noModelError, resolveParameters } from '../../models/model-parameters';
import { OutputLimits } from './output-limits';
import { payingTeam } from './paying-team';
import { priceCall } from './call-tariffs';
import type { ResolvedCall } from './resolved-call';
import { ProviderStrategy } from '../routing/provider-strategy.service';
import type { ProviderMessage } from '../providers/model-provider';
import { generateRequestOf } from './generate-request';
import type { CallRequest, ToolStep } from '../../models/call.types';

/**
 * Admission of metered model calls (architecture "One request through the AI module"): the
 * model, parameters, images, plugins, limits and the worst-case hold, before anything is sent
 * upstream. The calls themselves, their settlement and saving are AiService's.
 */
@Injectable()
export class AiAdmissions {
  private readonly logger = new Logger('AiAdmissions');

  constructor(
    private readonly catalogue: ModelCatalogue,
    private readonly strategy: ProviderStrategy,
    private readonly holds: CreditHoldsService,
    private readonly metrics: MetricsService,
    private readonly images: UploadImages,
    private readonly context: AdmissionContext,
    private readonly outputLimits: OutputLimits,
    private readonly prices: PriceBook,
    private readonly clock: Clock,
    @Inject(appSettingsConfig.KEY) app: ConfigType<typeof appSettingsConfig>,
    creditPrices: CreditPrices,
  ) {
    this.ownOrigin = new URL(app.baseUrl).origin;
    this.pricing = creditPrices.pricing;
  }

  /** CREDIT_PRICING and CREDIT_MARKUP: how the hold and the daily estimate are priced. */
  private readonly pricing: CreditPricing;

  /** APP_BASE_URL's origin: absolute image URLs of our uploads must be on it. */
  private readonly ownOrigin: string;

  /**
   * Checks and reserves before any upstream call: `resolveCall` (what is asked, and may it be),
   * then `reserve` (the worst-case hold, with the effective `maxTokens` and reasoning budget).
   * `options.preferences` (or the session's, `user.preferences`) spares reading the caller's
   * preferences. Refusals, in this order: PAYLOAD_TOO_LARGE (413), VALIDATION_FAILED (400: over 4
   * images, an image outside a user message); INSUFFICIENT_SCOPE (403, `chatId` without
   * `chats:write`); together NOT_FOUND (404, the chat, or an upload the caller may not read),
   * INSUFFICIENT_SCOPE (403, an upload not the key user's own without `chats:read`) and
   * VALIDATION_FAILED (400, not an image); VALIDATION_FAILED (400, `modelId` named nowhere),
   * UNKNOWN_MODEL (400), UNSUPPORTED_PARAMETER or VALIDATION_FAILED (400: a value the request sets
   * that the model does not take, or above the output limits, see OutputLimits; inherited ones
   * are skipped, see `fitParameters`), MODEL_CAPABILITY_MISSING (400, vision, then tools),
   * INSUFFICIENT_SCOPE or PLUGIN_NOT_ALLOWED (403, a plugin's scope; a plugin reading the
   * caller's private data in a chat others can read), MODEL_NOT_PRICED (400, CREDIT_PRICING=tokens
   * and the model has no price in force nor a fallback price); then DAILY_LIMIT_REACHED (429),
   * KEY_DAILY_LIMIT_REACHED (429), INSUFFICIENT_CREDITS (402). Each image adds its provider's
   * worst case to the hold.
   */
  async admit(user: SessionUser, dto: CallRequest, options: AdmitOptions = {}): Promise<Admission> {
    const call = await this.resolveCall(user, dto, options);
    const requestId = options.generationId ?? randomUUID();
    const { hold, messages } = await this.reserve(user, call, requestId);
    const { model, toolBox } = call;
    const trace = newTrace();
    const request = generateRequestOf(call, messages, options, trace);
    const admission: Admission = {
      user,
      dto,
      model,
      provider: this.strategy.for(model, call.fallbacks),
      fallbacks: call.fallbacks,
      tariffs: call.tariffs,
      imageCount: call.images.length,
      request,
      hold,
      trace,
      chatId: dto.chatId ?? options.newChatId ?? randomUUID(),
      isNewChat: !dto.chatId,
      store: options.store ?? true,
      inputs: call.inputs,
      toolTokens: call.toolTokens,
      toolBox,
      skippedParameters: call.skippedParameters,
      ...(options.record ? { record: options.record } : {}),
    };
    this.metrics.aiAdmitted(admission);
    return admission;
  }

  /**
   * What the request asks for, resolved and checked before any money is reserved: its inputs,
   * the chat, preferences and images it reads, the model and effective parameters (`maxTokens`
   * within `options.outputLimits`), the plugins' tools, and the provider messages (images
   * without their bytes yet). Throws the refusals of `admit` up to the plugins', in that order.
   */
  private async resolveCall(
    user: SessionUser,
    dto: CallRequest,
    options: AdmitOptions,
  ): Promise<ResolvedCall> {
    const inputs = readInputs(dto.messages, this.ownOrigin);
    const { chat, prefs, images } = await this.context.read(user, dto, inputs, options.preferences);
    const effective = resolveParameters(dto, chat?.settings, prefs);
    if (!effective.modelId) throw noModelError();
    await this.strategy.refreshUpstreams();
    const model = this.catalogue.require(effective.modelId);
    checkThinking(model, options);
    const requested =
      options.models && requestedFallbacks(this.catalogue, model.id, options.models);
    // The output limits settle the maxTokens range (and a default within it) first, so an
    // inherited value beyond them is skipped like any other the model does not take.
    const maxTokens = await this.outputLimits.apply(
      user,
      model,
      effective.values,
      effective.sources,
      options.outputLimits,
    );
    const rules = { ...model.parameters, maxTokens };
    const { values, skipped } = fitParameters(model.id, rules, effective);
    if (skipped.length)
      this.logger.debug(
        `user ${user.id}: ${model.id} does not take the inherited ${skipped.join(', ')}; skipped`,
      );
    if (images.length) requireCapability(model, 'vision');
    const toolBox = await this.context.toolBox(user, dto, chat, model);
    checkClientTools(model, options, !!toolBox);
    const messages = toProviderMessages(inputs, values.systemPrompt);
    const candidates = fallbacksNeeding(this.catalogue, model, requested, values, {
      vision: images.length > 0,
      tools: !!toolBox || !!options.clientTools,
      structured_output: !!options.responseFormat,
    });
    const { tariffs, fallbacks } = await priceCall(
      this.prices,
      { at: this.clock.now(), plan: user.plan, pricing: this.pricing },
      model,
      candidates,
    );
    return {
      teamId: payingTeam(user, dto, chat?.teamId ?? null),
      inputs,
      images,
      model,
      fallbacks,
      tariffs,
      values,
      skippedParameters: skipped,
      budget: reasoningBudget(model),
      toolBox,
      messages,
      toolTokens: clientToolTokens(options, messages),
    };
  }

  /**
   * Reserves the worst case of a resolved call (see `holdWorstCase`). The images' bytes are read
   * only once the hold is taken, into the returned messages; should that fail, the hold goes back
   * before the error is thrown.
   */
  private async reserve(
    user: SessionUser,
    call: ResolvedCall,
    requestId: string,
  ): Promise<{ hold: OpenHold; messages: ProviderMessage[] }> {
    const { model, values, toolTokens, images } = call;
    const hold = await this.holdWorstCase(
      user,
      requestId,
      [model, ...call.fallbacks],
      call.tariffs,
      call.teamId,
      {
        messages: call.messages,
        maxTokens: values.maxTokens,
        images: images.length,
        toolTokens,
      },
    );
    if (!images.length) return { hold, messages: call.messages };
    const bytes = await Promise.all(
      images.map(async (image) =>
        'inline' in image
          ? image.inline
          : { mediaType: image.upload.contentType, data: await this.images.base64(image.upload) },
      ),
    ).catch(async (err: unknown) => {
      await this.holds.release(hold);
      throw err;
    });
    return { hold, messages: toProviderMessages(call.inputs, values.systemPrompt, bytes) };
  }

  /**
   * One hold of a call's worst case over the models that may answer it (see worstCase: the
   * prompt estimate plus `maxTokens` with each model's reasoning budget plus the images' and
   * client tools' tokens, priced for each, the largest held). The same statement checks the
   * daily limit against the prompt estimate and the key's limit against the whole hold; with
   * `teamId`, the team's pool holds (members only, else NOT_FOUND) and the plan's daily limit
   * does not apply. Throws DAILY_LIMIT_REACHED, KEY_DAILY_LIMIT_REACHED (429),
   * INSUFFICIENT_CREDITS (402, explainRefusal).
   */
  private holdWorstCase(
    user: SessionUser,
    requestId: string,
    models: ModelDescriptor[],
    tariffs: Record<string, Tariff>,
    teamId: string | undefined,
    call: Parameters<typeof worstCase>[1],
  ): Promise<OpenHold> {
    const { amount, estimate } = worstCase(models, call, (m) => tariffs[m.id]);
    return this.holds
      .hold(user.id, amount, requestId, estimate, user.apiKey?.id, teamId)
      .catch((err: unknown) => this.context.explainRefusal(user, err));
  }

  /**
   * The prompt tokens a call of `dto` is held for (inputPromptTokens; `count_tokens`), nothing
   * held: the models refreshed and the model checked as `admit` checks it (UNKNOWN_MODEL, then
   * `thinking`), the messages read as it reads them (413, 400).
   */
  async promptTokens(dto: CallRequest, options: AdmitOptions): Promise<number> {
    await this.strategy.refreshUpstreams();
    const model = this.catalogue.require(dto.modelId ?? '');
    checkThinking(model, options);
    return inputPromptTokens(readInputs(dto.messages, this.ownOrigin), model, options.clientTools);
  }

  /**
   * The next model call of a tool loop: admitted like the first (a new hold for
   * the worst case of `messages`, the daily and key limits checked again), in the same chat,
   * saving `steps` (the tools' results) with its reply. Throws INSUFFICIENT_CREDITS (402),
   * DAILY_LIMIT_REACHED (429), KEY_DAILY_LIMIT_REACHED (429).
   */
  async admitNext(
    a: Admission,
    messages: ProviderMessage[],
    steps: ToolStep[],
  ): Promise<Admission> {
    // Each step is held at the tariffs chosen when the request was admitted.
    const hold = await this.holdWorstCase(
      a.user,
      randomUUID(),
      [a.model, ...a.fallbacks],
      a.tariffs,
      a.hold.teamId,
      {
        messages,
        maxTokens: a.request.maxTokens,
        images: a.imageCount,
        toolTokens: a.toolTokens,
      },
    );
    const trace = newTrace();
    const next: Admission = {
      ...a,
      request: { ...a.request, messages, trace },
      hold,
      trace,
      isNewChat: false,
      continuation: { steps },
    };
    this.metrics.aiAdmitted(next); // each call of a loop is timed on its own
    return next;
  }
}
