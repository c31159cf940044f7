import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { UploadLinks } from '../uploads/upload-links';
import {
  ATTACHMENTS_OF_MESSAGES_SQL,
  UPLOAD_READABLE_THROUGH_CHAT_SQL,
  UPLOADS_IN_ANY_CHAT_SQL,
} from './attachment-access.sql';
import type { MessageAttachmentDto } from './dto/chat.dto';

/** Chat rows whose messages may carry attachments without their links yet. */
type WithMessages = { messages?: { attachments?: Omit<MessageAttachmentDto, 'url'>[] }[] };

/**
 * Which uploads a user may see through chats: an upload its OWNER attached to a message of a
 * chat the user owns, or of a chat shared with a team the user belongs to (the `read` rule of
 * ChatsService.requireChatAccess, evaluated in SQL at each request, so leaving a team ends it
 * at once). An attachment made by anyone else (a teammate sending the owner's image again in a
 * chat of their own) is no access path: it is not counted here and chat reads leave it out
 * (`OWNER_ATTACHED`), so it can neither outlive the teammate's membership nor carry the file
 * into chats the owner never chose.
 */
@Injectable()
export class ChatAttachments {
  constructor(
    private readonly db: DataSource,
    private readonly links: UploadLinks,
  ) {}

  /**
   * Gives every attachment of `rows`' messages its signed download link (UPLOAD_URL_TTL_SECONDS),
   * in place; the reader may read the chat, so may read its images. Returns `rows`.
   */
  sign<T extends WithMessages>(rows: T[]): T[] {
    for (const row of rows)
      for (const m of row.messages ?? [])
        for (const a of m.attachments ?? [])
          (a as MessageAttachmentDto).url = this.links.signedUrl(a.filename);
    return rows;
  }

  /**
   * The signed attachments of `messageIds`, by message id, in order (one query); only those the
   * upload's owner made (OWNER_ATTACHED).
   */
  async of(messageIds: string[]): Promise<Map<string, MessageAttachmentDto[]>> {
    const out = new Map<string, MessageAttachmentDto[]>();
    if (!messageIds.length) return out;
    const rows: (Omit<MessageAttachmentDto, 'url'> & { messageId: string })[] = await this.db.query(
      ATTACHMENTS_OF_MESSAGES_SQL,
      [messageIds],
    );
    for (const { messageId, ...a } of rows) {
      const list = out.get(messageId) ?? [];
      list.push({ ...a, url: this.links.signedUrl(a.filename) });
      out.set(messageId, list);
    }
    return out;
  }

  /**
   * True when `userId` can now read a chat in which the owner of `uploadId` attached it to a
   * message (OWNER_ATTACHED). One indexed query.
   */
  async readableThroughChat(userId: string, uploadId: string): Promise<boolean> {
    const rows: unknown[] = await this.db.query(UPLOAD_READABLE_THROUGH_CHAT_SQL, [
      uploadId,
      userId,
    ]);
    return rows.length > 0;
  }

  /** The ids among `uploadIds` attached in any chat (by anyone, readable or not). One query. */
  async inAnyChat(uploadIds: string[]): Promise<Set<string>> {
    if (!uploadIds.length) return new Set();
    const rows: { id: string }[] = await this.db.query(UPLOADS_IN_ANY_CHAT_SQL, [uploadIds]);
    return new Set(rows.map((r) => r.id));
  }
}
