import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

/**
 * Which uploads a user may see through chats (issue 18 §1b): an upload attached to a message of
 * a chat the user owns, or of a chat shared with a team the user belongs to (the `read` rule of
 * ChatsService.requireChatAccess, evaluated in SQL).
 */
@Injectable()
export class ChatAttachments {
  constructor(private readonly db: DataSource) {}

  /** True when `userId` can read a chat whose messages attach `uploadId`. One indexed query. */
  async readableThroughChat(userId: string, uploadId: string): Promise<boolean> {
    const rows: unknown[] = await this.db.query(
      `SELECT 1
         FROM message_attachments a
         JOIN messages m ON m.id = a."messageId"
         JOIN chats c ON c.id = m."chatId"
        WHERE a."uploadId" = $1
          AND (c."userId" = $2
               OR EXISTS (SELECT 1 FROM team_members tm
                           WHERE tm."teamId" = c."teamId" AND tm."userId" = $2))
        LIMIT 1`,
      [uploadId, userId],
    );
    return rows.length > 0;
  }
}
