import { createHash, randomBytes } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { appSettingsConfig } from '../config/app-settings.config';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { ChatsService } from '../chats/chats.service';
import type { SessionUser } from '../common/auth/session-user';
import { AppError, CommonErrorCode } from '../common/errors/app-error';
import { ChatShare, type ShareSnapshot } from './chat-share.entity';
import type { ShareLinkDto, ShareStatusDto, SharedChatDto } from './dto/share.dto';
import { UPSERT_SHARE_SQL } from './shares.sql';

const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');
const linkNotFound = () => new AppError(CommonErrorCode.NOT_FOUND, 'Share link not found');

/**
 * Public read-only share links. The owner makes, refreshes and revokes a chat's
 * one link; anyone holding the token reads the snapshot taken when it was made.
 */
@Injectable()
export class SharesService {
  constructor(
    @InjectRepository(ChatShare) private readonly shares: Repository<ChatShare>,
    private readonly chats: ChatsService,
    @Inject(appSettingsConfig.KEY)
    private readonly appSettings: ConfigType<typeof appSettingsConfig>,
  ) {}

  /**
   * Makes the chat's link, or refreshes it: a new token (the old one stops working) and a new
   * snapshot of the title and every message, copied in one statement. Owner only: 403 for a
   * team member, 404 for anyone else.
   */
  async share(user: SessionUser, chatId: string): Promise<ShareLinkDto> {
    await this.requireOwner(user, chatId);
    const token = randomBytes(32).toString('base64url');
    await this.shares.query(UPSERT_SHARE_SQL, [chatId, hashToken(token)]);
    const base = this.appSettings.baseUrl;
    return { token, url: `${base}/share/${token}` };
  }

  /** Whether the chat has a link (owner only, as `share`). */
  async status(user: SessionUser, chatId: string): Promise<ShareStatusDto> {
    await this.requireOwner(user, chatId);
    const link = await this.shares.findOneBy({ chatId });
    return { shared: !!link, createdAt: link ? link.createdAt.toISOString() : null };
  }

  /** Revokes the link (owner only); 404 when there is none. */
  async revoke(user: SessionUser, chatId: string): Promise<void> {
    await this.requireOwner(user, chatId);
    const { affected } = await this.shares.delete({ chatId });
    if (!affected) throw linkNotFound();
  }

  /** True when the chat has a live share link (anyone holding it reads the chat's snapshot). */
  async hasLink(chatId: string): Promise<boolean> {
    return this.shares.existsBy({ chatId });
  }

  /** The snapshot behind a token; 404 for an unknown or revoked token. */
  async open(token: string): Promise<SharedChatDto> {
    const link = await this.shares.findOneBy({ tokenHash: hashToken(token) });
    if (!link) throw linkNotFound();
    const snapshot: ShareSnapshot = link.snapshot;
    return {
      title: snapshot.title,
      sharedAt: link.createdAt.toISOString(),
      messages: snapshot.messages.map((m) => ({
        role: m.role,
        content: m.content,
        createdAt: m.createdAt,
      })),
    };
  }

  private async requireOwner(user: SessionUser, chatId: string): Promise<void> {
    const chat = await this.chats.requireChatAccess(user, chatId, 'read');
    if (chat.userId !== user.id)
      throw new AppError(
        CommonErrorCode.FORBIDDEN,
        'Only the chat owner may manage its share link',
      );
  }
}
