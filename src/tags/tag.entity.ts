import {
  Column,
  CreateDateColumn,
  Entity,
  ManyToOne,
  PrimaryColumn,
  PrimaryGeneratedColumn,
  UpdateDateColumn,
} from 'typeorm';
import { Chat } from '../chats/chat.entity';
import { User } from '../users/user.entity';

/**
 * A tag belongs to one user and is private, even on a team-shared chat. The name is
 * unique per user case-insensitively (index `UQ_tags_user_name` on `lower(name)`, in the
 * migration); `color` is `#rrggbb` lower-cased, or null.
 */
@Entity('tags')
export class Tag {
  @PrimaryGeneratedColumn('uuid') id: string;
  @Column({ type: 'uuid' }) userId: string;

  @ManyToOne(() => User, { onDelete: 'CASCADE' })
  user?: User;

  @Column({ type: 'varchar', length: 40 }) name: string;
  @Column({ type: 'varchar', length: 7, nullable: true }) color: string | null;
  @CreateDateColumn({ type: 'timestamptz', precision: 3 }) createdAt: Date;
  @UpdateDateColumn({ type: 'timestamptz', precision: 3 }) updatedAt: Date;
}

/** A tag on a chat. Whose it is follows from the tag; deleting either side removes the link. */
@Entity('chat_tags')
export class ChatTag {
  @PrimaryColumn('uuid') chatId: string;
  @PrimaryColumn('uuid') tagId: string;

  @ManyToOne(() => Chat, { onDelete: 'CASCADE' })
  chat?: Chat;

  @ManyToOne(() => Tag, { onDelete: 'CASCADE' })
  tag?: Tag;
}
