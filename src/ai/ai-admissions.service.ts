import { Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { AppConfig } from '../config/app.config';
import { randomUUID } from 'node:crypto';
import type { Chat } from '../chats/chat.entity';
import { ChatsService } from '../chats/chats.service';
import type { ToolStep } from '../chats/chat-exchange.sql';
import { requireScope } from '../common/auth/require-scope';
import type { SessionUser } from '../common/auth/session-user';
import { CreditHoldsService } from '../credits/credit-holds.service';
import { estimate, holdAmount } from '../credits/pricing';
import { MetricsService } from '../metrics/metrics.service';
import { ToolBoxes } from '../plugins/tool.types';
import { SharesService } from '../shares/shares.service';
import { UploadImages } from '../uploads/upload-images.service';
import type { StoredPreferences } from '../users/preferences/preferences.dto';
import { PreferencesService } from '../users/preferences/preferences.service';
import type { Admission, CallOptions } from './ai.types';
import type { GenerateDto } from './dto/generate.dto';
import { IMAGE_TOKENS_WORST_CASE } from './image-tokens';
import { readInputs, requireCapability, toProviderMessages } from './message-inputs';
import { ModelCatalogue, reasoningBudget } from '../models/model-catalogue';
import { checkParameters, noModelError, resolveParameters } from '../models/model-parameters';
import { ProviderStrategy } from './provider-strategy.service';
import type { GenerateRequest, ProviderMessage } from './providers/model-provider';

/**
 * Admission of metered model calls (architecture "One request through the AI module"): the
 * model, parameters, images, plugins, limits and the worst-case hold, before anything is sent
 * upstream. The calls themselves, their settlement and saving are AiService's.
 */
@Injectable()
export class AiAdmissions {
  constructor(
    private readonly catalogue: ModelCatalogue,
    private readonly strategy: ProviderStrategy,
    private readonly holds: CreditHoldsService,
    private readonly chats: ChatsService,
    private readonly preferences: PreferencesService,
    private readonly metrics: MetricsService,
    private readonly images: UploadImages,
    private readonly toolBoxes: ToolBoxes,
    private readonly shares: SharesService,
    config: ConfigService<AppConfig, true>,
  ) {
    this.ownOrigin = new URL(config.get('app', { infer: true }).baseUrl).origin;
  }

  /** APP_BASE_URL's origin: absolute image URLs of our uploads must be on it. */
  private readonly ownOrigin: string;

  /**
   * Checks and reserves before any upstream call. The effective parameters (request > chat >
   * preferences > default, field by field) are resolved first, so the hold's worst case uses the
   * effective `maxTokens` plus the model's reasoning budget. Reads: the chat (access check, which
   * brings its settings) and the caller's preferences, in parallel; `preferences` (or those the
   * session read brought, `user.preferences`) skips the latter. Throws VALIDATION_FAILED (400, `modelId` named
   * nowhere, or a value out of the model's range), UNKNOWN_MODEL (400), UNSUPPORTED_PARAMETER
   * (400), PAYLOAD_TOO_LARGE (413), NOT_FOUND (404, chat), DAILY_LIMIT_REACHED (429),
   * INSUFFICIENT_CREDITS (402); for images NOT_FOUND (404, an upload the caller may
   * not read), VALIDATION_FAILED (400, over 4, not an image) and MODEL_CAPABILITY_MISSING (400).
   * Each image adds its provider's worst case (IMAGE_TOKENS_WORST_CASE) to the hold.
   * With an API key, every resource is checked against the key's scopes: `chatId` (written to)
   * needs `chats:write`, an upload not the key user's own `chats:read`, a plugin its tool's
   * scope (INSUFFICIENT_SCOPE, 403). A plugin reading the caller's private data is refused in a
   * chat others can read (PLUGIN_NOT_ALLOWED, 403).
   */
  async admit(
    user: SessionUser,
    dto: GenerateDto,
    signal?: AbortSignal,
    newChatId?: string,
    preferences?: StoredPreferences | null,
    options: CallOptions = {},
  ): Promise<Admission> {
    const inputs = readInputs(dto.messages, this.ownOrigin);
    const sources = inputs.flatMap((m) => m.images);
    // The exchange is written into the chat: a key needs `chats:write` for any chat it names,
    // checked before the chat is looked up (a key without it learns nothing of other chats).
    if (dto.chatId) requireScope(user, 'chats:write', 'chatId');
    const [chat, prefs, images] = await Promise.all([
      dto.chatId ? this.chats.requireChatAccess(user, dto.chatId, 'read') : undefined,
      preferences !== undefined
        ? preferences
        : user.preferences !== undefined
          ? user.preferences // read with the session
          : this.preferences.stored(user.id),
      this.images.resolve(user, sources),
    ]);
    // What is saved: each message's images that are uploads (inline data URLs are not kept).
    let at = 0;
    for (const m of inputs)
      m.uploadIds = m.images.flatMap(() => {
        const image = images[at++];
        return 'upload' in image ? [image.upload.id] : [];
      });
    const effective = resolveParameters(dto, chat?.settings, prefs);
    if (!effective.modelId) throw noModelError();
    const model = this.catalogue.require(effective.modelId);
    const { values } = effective;
    checkParameters(model.id, model.parameters, values, effective.sources);
    if (images.length) requireCapability(model, 'vision');
    // The request's plugins, else the chat's (a request's `[]` turns the chat's off).
    const plugins = dto.plugins ?? chat?.settings?.plugins ?? [];
    if (plugins.length) requireCapability(model, 'tools');
    const toolBox = plugins.length
      ? await this.toolBoxes.toolBox(user, plugins, {
          onlyCallerReads: () => this.onlyCallerReads(user, chat),
        })
      : undefined;
    const messages = toProviderMessages(inputs, values.systemPrompt);
    const imageTokens = images.length * IMAGE_TOKENS_WORST_CASE[model.providerId];
    const budget = reasoningBudget(model);
    const hold = await this.holds.hold(
      user.id,
      holdAmount(messages, model, values.maxTokens + budget, imageTokens),
      randomUUID(),
      estimate(messages, model, imageTokens),
      user.apiKey?.id,
    );
    if (images.length) {
      // Bytes are read only once the hold is taken, and the hold goes back if they cannot be.
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
      messages.splice(
        0,
        messages.length,
        ...toProviderMessages(inputs, values.systemPrompt, bytes),
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
      ...(toolBox ? { tools: toolBox.definitions } : {}),
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
      toolBox,
    };
    this.metrics.aiAdmitted(admission);
    return admission;
  }

  /**
   * True when no one but `user` reads the chat the exchange goes to (its tool results included):
   * a new chat (none named), or the caller's own chat that is neither shared with a team nor
   * published by a share link. A member continuing a team chat, or anyone in a chat with a
   * link, is not alone.
   */
  private async onlyCallerReads(user: SessionUser, chat: Chat | undefined): Promise<boolean> {
    if (!chat) return true;
    if (chat.userId !== user.id || chat.teamId) return false;
    return !(await this.shares.hasLink(chat.id));
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
    const budget = a.request.reasoningBudget ?? 0;
    const hold = await this.holds.hold(
      a.user.id,
      holdAmount(messages, a.model, a.request.maxTokens + budget, a.imageTokens),
      randomUUID(),
      estimate(messages, a.model, a.imageTokens),
      a.user.apiKey?.id,
    );
    const next: Admission = {
      ...a,
      request: { ...a.request, messages },
      hold,
      isNewChat: false,
      continuation: { steps },
    };
    this.metrics.aiAdmitted(next); // each call of a loop is timed on its own
    return next;
  }
}
