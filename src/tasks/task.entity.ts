import {
  Column,
  CreateDateColumn,
  Entity,
  PrimaryGeneratedColumn,
  UpdateDateColumn,
} from 'typeorm';

/** A message of a task's prompt, as sent to the model (roles of GenerateDto). */
export interface TaskMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

/** Model parameters of a task (GenerateDto's, without `modelId` and `chatId`). */
export interface TaskSettings {
  temperature?: number;
  topP?: number;
  maxTokens?: number;
  systemPrompt?: string;
  presencePenalty?: number;
  frequencyPenalty?: number;
  stop?: string[];
}

/** One workflow step; `modelId` defaults to the prompt's. */
export interface TaskStep {
  name: string;
  modelId?: string;
  messages: TaskMessage[];
}

/** A single prompt (`messages`) or a workflow (`steps`, 2–5), never both. */
export interface TaskPrompt {
  modelId?: string;
  messages?: TaskMessage[];
  settings?: TaskSettings;
  steps?: TaskStep[];
}

export const TARGET_MODES = ['new_chat', 'append'] as const;
export type TargetMode = (typeof TARGET_MODES)[number];

/**
 * A prompt or workflow run on a cron schedule on behalf of its owner. `nextRunAt`
 * is null while the task is paused; the scheduler claims a due task by moving it forward.
 */
@Entity('tasks')
export class Task {
  @PrimaryGeneratedColumn('uuid') id: string;
  @Column({ type: 'uuid' }) userId: string;
  @Column({ type: 'varchar', length: 100 }) name: string;
  @Column({ type: 'varchar', length: 100 }) cron: string;
  @Column({ type: 'varchar', length: 64 }) timezone: string;
  @Column({ type: 'jsonb' }) prompt: TaskPrompt;
  @Column({ type: 'varchar', length: 10 }) targetMode: TargetMode;
  @Column({ type: 'uuid', nullable: true }) targetChatId: string | null;
  @Column({ type: 'boolean', default: true }) enabled: boolean;
  @Column({ type: 'varchar', length: 300, nullable: true }) pausedReason: string | null;
  @Column({ type: 'timestamptz', precision: 3, nullable: true }) nextRunAt: Date | null;
  @Column({ type: 'integer', default: 0 }) consecutiveFailures: number;
  @CreateDateColumn({ type: 'timestamptz', precision: 3 }) createdAt: Date;
  @UpdateDateColumn({ type: 'timestamptz', precision: 3 }) updatedAt: Date;
}
