import {
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  OneToMany,
  PrimaryGeneratedColumn,
  UpdateDateColumn,
} from 'typeorm';
import type { ModelParametersDto } from '../models/dto/model-parameters.dto';

/** A chat's stored settings: model parameters, and the plugins of its requests. */
type ChatSettings = ModelParametersDto & { plugins?: string[] };
import { Team } from '../teams/team.entity';
import { User } from '../users/user.entity';
import { Message } from './message.entity';

/**
 * Spec "Chat": owned by `userId`; deleting the user deletes the chat. `teamId` shares it with a
 * team; deleting the team unshares it (ON DELETE SET NULL).
 */
@Entity('chats')
@Index('IDX_chats_user_updated', ['userId', 'updatedAt', 'id'])
@Index('IDX_chats_team_updated', ['teamId', 'updatedAt', 'id'])
export class Chat {
  @PrimaryGeneratedColumn('uuid') id: string;
  @Column({ type: 'varchar', length: 200 }) title: string;
  @Column({ type: 'uuid' }) userId: string;

  @ManyToOne(() => User, { onDelete: 'CASCADE' })
  user?: User;

  /** Team the chat is shared with; null when private. */
  @Column({ type: 'uuid', nullable: true }) teamId: string | null;

  @ManyToOne(() => Team, { onDelete: 'SET NULL' })
  @JoinColumn({ name: 'teamId' })
  team?: Team;

  /** Model parameters of this chat; null when it has none. */
  @Column({ type: 'jsonb', nullable: true }) settings: ChatSettings | null;

  @OneToMany(() => Message, (m) => m.chat)
  messages?: Message[];

  @CreateDateColumn({ type: 'timestamptz', precision: 3 }) createdAt: Date;
  @UpdateDateColumn({ type: 'timestamptz', precision: 3 }) updatedAt: Date;
}
