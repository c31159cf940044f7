import {
  Check,
  Column,
  CreateDateColumn,
  Entity,
  Generated,
  Index,
  ManyToOne,
  PrimaryGeneratedColumn,
} from 'typeorm';
import { User } from '../users/user.entity';
import { Chat } from './chat.entity';

/** `TOOL`: the result of a tool the model called, saved after the call that asked. */
export const MESSAGE_ROLES = ['USER', 'ASSISTANT', 'TOOL'] as const;
export type MessageRole = (typeof MESSAGE_ROLES)[number];

/** A tool call as the model asked for it; `arguments` is the JSON object it sent. */
export interface SavedToolCall {
  id: string;
  name: string;
  arguments: Record<string, unknown>;
}

/** See `Message.tool`. */
export type MessageTool = { calls: SavedToolCall[] } | { id: string; name: string; ok: boolean };

/** Spec "Message": read oldest first; deleting the chat deletes its messages. */
@Entity('messages')
@Index('IDX_messages_chat_created', ['chatId', 'createdAt', 'seq'])
@Check('CHK_messages_role', `"role" IN ('USER', 'ASSISTANT', 'TOOL')`)
export class Message {
  @PrimaryGeneratedColumn('uuid') id: string;
  @Column({ type: 'uuid' }) chatId: string;

  @ManyToOne(() => Chat, (c) => c.messages, { onDelete: 'CASCADE' })
  chat?: Chat;

  /** Author; kept null when the author's account is deleted from a shared chat. */
  @Column({ type: 'uuid', nullable: true }) userId: string | null;

  @ManyToOne(() => User, { onDelete: 'SET NULL' })
  user?: User;

  @Column({ type: 'varchar', length: 10 }) role: MessageRole;
  @Column({ type: 'text' }) content: string;

  /**
   * Tool use: on an ASSISTANT message, the tool calls it made (`{calls: [{id, name,
   * arguments}]}`); on a TOOL message, the call it answers (`{id, name, ok}`). Null otherwise.
   */
  @Column({ type: 'jsonb', nullable: true }) tool: MessageTool | null;

  /** Insertion order: breaks ties between messages written in the same millisecond. */
  @Column({ type: 'bigint' })
  @Generated('increment')
  seq: string;

  @CreateDateColumn({ type: 'timestamptz', precision: 3 }) createdAt: Date;
}
