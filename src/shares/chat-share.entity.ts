import { Column, CreateDateColumn, Entity, Index, ManyToOne, PrimaryColumn } from 'typeorm';
import { Chat } from '../chats/chat.entity';

/** What a share link shows: a copy taken when the link was made, so later messages stay out. */
export interface ShareSnapshot {
  title: string;
  messages: { role: string; content: string; createdAt: string }[];
}

/**
 * The public link of a chat (at most one). Only the SHA-256 of the token is stored;
 * the snapshot carries no emails and no user ids. Deleting the chat deletes the link.
 */
@Entity('chat_shares')
export class ChatShare {
  @PrimaryColumn('uuid') chatId: string;

  @ManyToOne(() => Chat, { onDelete: 'CASCADE' })
  chat?: Chat;

  @Index('UQ_chat_shares_token_hash', { unique: true })
  @Column({ type: 'varchar', length: 64 })
  tokenHash: string;

  @Column({ type: 'jsonb' }) snapshot: ShareSnapshot;
  @CreateDateColumn({ type: 'timestamptz', precision: 3 }) createdAt: Date;
}
