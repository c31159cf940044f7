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

export const MESSAGE_ROLES = ['USER', 'ASSISTANT'] as const;
export type MessageRole = (typeof MESSAGE_ROLES)[number];

/** Spec "Message": read oldest first; deleting the chat deletes its messages. */
@Entity('messages')
@Index('IDX_messages_chat_created', ['chatId', 'createdAt', 'seq'])
@Check('CHK_messages_role', `"role" IN ('USER', 'ASSISTANT')`)
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

  /** Insertion order: breaks ties between messages written in the same millisecond. */
  @Column({ type: 'bigint' })
  @Generated('increment')
  seq: string;

  @CreateDateColumn({ type: 'timestamptz', precision: 3 }) createdAt: Date;
}
