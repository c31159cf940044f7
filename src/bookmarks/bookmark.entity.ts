import {
  Column,
  CreateDateColumn,
  Entity,
  Index,
  ManyToOne,
  PrimaryGeneratedColumn,
  UpdateDateColumn,
} from 'typeorm';
import { Chat } from '../chats/chat.entity';
import { Message } from '../chats/message.entity';
import { User } from '../users/user.entity';

/**
 * A user's bookmark of a message, at most one per user and message. `chatId` is the
 * message's chat (a message never moves), so access is decided without another join. Deleting
 * the user, the chat or the message deletes the bookmark.
 */
@Entity('bookmarks')
@Index('UQ_bookmarks_user_message', ['userId', 'messageId'], { unique: true })
@Index('IDX_bookmarks_user_created', ['userId', 'createdAt', 'id'])
export class Bookmark {
  @PrimaryGeneratedColumn('uuid') id: string;
  @Column({ type: 'uuid' }) userId: string;
  @Column({ type: 'uuid' }) messageId: string;
  @Column({ type: 'uuid' }) chatId: string;

  @ManyToOne(() => User, { onDelete: 'CASCADE' })
  user?: User;

  @ManyToOne(() => Message, { onDelete: 'CASCADE' })
  message?: Message;

  @ManyToOne(() => Chat, { onDelete: 'CASCADE' })
  chat?: Chat;

  @Column({ type: 'varchar', length: 500, nullable: true }) note: string | null;
  @CreateDateColumn({ type: 'timestamptz', precision: 3 }) createdAt: Date;
  @UpdateDateColumn({ type: 'timestamptz', precision: 3 }) updatedAt: Date;
}
