import { Inject, Injectable } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { sharedConfig } from '../../config/shared.config';
import { AppError } from '../../common/errors/app-error';
import { CreditsErrorCode } from '../../credits/credits.errors';
import { UsersService } from '../../users/users.service';
import type { Chat } from '../../chats/chat.entity';
import { ChatsService } from '../../chats/chats.service';
import { requireScope } from '../../common/auth/require-scope';
import type { SessionUser } from '../../common/auth/session-user';
import { type ToolBox, ToolBoxes } from '../../plugins/tool.types';
import { SharesService } from '../../shares/shares.service';
import { type ResolvedImage, UploadImages } from '../../uploads/upload-images.service';
import type { StoredPreferences } from '../../users/preferences/preferences.dto';
import { PreferencesService } from '../../users/preferences/preferences.service';
import type { Admission } from '../ai.types';
import { type InputMessage, requireCapability } from './message-inputs';
import type { CallRequest } from '../../models/call.types';

/**
 * What an admission reads besides the request, each with the caller's rights: the chat it names,
 * the preferences that apply, its images, and the tools of its plugins.
 */
@Injectable()
export class AdmissionContext {
  constructor(
    private readonly chats: ChatsService,
    private readonly preferences: PreferencesService,
    private readonly images: UploadImages,
    private readonly toolBoxes: ToolBoxes,
    private readonly shares: SharesService,
    private readonly users: UsersService,
    @Inject(sharedConfig.KEY) private readonly shared: ConfigType<typeof sharedConfig>,
  ) {}

  /**
   * Rethrows a refused hold, explained where the caller can do something about it: an
   * INSUFFICIENT_CREDITS (402, code and status kept) of a user whose address is not verified,
   * while verifying grants SIGNUP_CREDITS, gains `hint` {key: VERIFY_EMAIL_FOR_SIGNUP_CREDITS,
   * args: {credits}}, which the error presenter translates (i18n namespace `hints`). One read of
   * the user, on this refusal only. Always throws.
   */
  async explainRefusal(user: SessionUser, err: unknown): Promise<never> {
    if (!(err instanceof AppError) || err.code !== CreditsErrorCode.INSUFFICIENT_CREDITS) throw err;
    if (err.details?.teamId) throw err; // a team's pool was short, not the caller's balance
    const credits = this.shared.signupCredits;
    if (credits <= 0 || (await this.users.get(user.id)).emailVerifiedAt) throw err;
    const hint = { key: 'VERIFY_EMAIL_FOR_SIGNUP_CREDITS', args: { credits } };
    throw new AppError(CreditsErrorCode.INSUFFICIENT_CREDITS, err.message, {
      ...err.details,
      hint,
    });
  }

  /**
   * Reads, in parallel, the chat the request names (access checked: NOT_FOUND), the preferences
   * that apply (given, else the session's, else one query) and the request's images (NOT_FOUND,
   * INSUFFICIENT_SCOPE, VALIDATION_FAILED). Each input message gets the upload ids of its images
   * (what is saved with the exchange; inline data URLs are not kept).
   */
  async read(
    user: SessionUser,
    dto: CallRequest,
    inputs: InputMessage[],
    preferences: StoredPreferences | null | undefined,
  ): Promise<{ chat?: Chat; prefs: StoredPreferences | null; images: ResolvedImage[] }> {
    // The exchange is written into the chat: a key needs `chats:write` for any chat it names,
    // checked before the chat is looked up (a key without it learns nothing of other chats).
    if (dto.chatId) requireScope(user, 'chats:write', 'chatId');
    const sources = inputs.flatMap((m) => m.images);
    const [chat, prefs, images] = await Promise.all([
      dto.chatId ? this.chats.requireChatAccess(user, dto.chatId, 'read') : undefined,
      preferences !== undefined
        ? preferences
        : user.preferences !== undefined
          ? user.preferences // read with the session
          : this.preferences.stored(user.id),
      this.images.resolve(user, sources),
    ]);
    let at = 0;
    for (const m of inputs)
      m.uploadIds = m.images.flatMap(() => {
        const image = images[at++];
        return 'upload' in image ? [image.upload.id] : [];
      });
    return { chat, prefs, images };
  }

  /**
   * The tools of the request's plugins, else the chat's (a request's `[]` turns the chat's off);
   * undefined without plugins. Throws MODEL_CAPABILITY_MISSING (400), INSUFFICIENT_SCOPE (403) or
   * PLUGIN_NOT_ALLOWED (403).
   */
  async toolBox(
    user: SessionUser,
    dto: CallRequest,
    chat: Chat | undefined,
    model: Admission['model'],
  ): Promise<ToolBox | undefined> {
    const plugins = dto.plugins ?? chat?.settings?.plugins ?? [];
    if (!plugins.length) return undefined;
    requireCapability(model, 'tools');
    return this.toolBoxes.toolBox(user, plugins, {
      onlyCallerReads: () => this.onlyCallerReads(user, chat),
    });
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
}
