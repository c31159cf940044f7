import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn } from 'typeorm';

export const RUN_STATUSES = [
  'queued',
  'running',
  'succeeded',
  'failed',
  'skipped',
  'cancelled',
] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

/** What one step (or the single prompt, as step "prompt") produced and cost. */
export interface StepRecord {
  name: string;
  status: 'succeeded' | 'failed' | 'skipped' | 'cancelled';
  output: string;
  usage: { promptTokens: number; completionTokens: number } | null;
  /** Credits charged for this step (its own hold and CONSUMPTION entry). */
  cost: number;
  error: { code: string; message: string } | null;
}

/** One execution of a task, scheduled or on demand. */
@Entity('task_runs')
export class TaskRun {
  @PrimaryGeneratedColumn('uuid') id: string;
  @Column({ type: 'uuid' }) taskId: string;
  @Column({ type: 'uuid' }) userId: string;
  @Column({ type: 'varchar', length: 10 }) trigger: 'schedule' | 'manual';
  /** The schedule time this run is for; null for a run on demand. */
  @Column({ type: 'timestamptz', precision: 3, nullable: true }) scheduledFor: Date | null;
  @Column({ type: 'text', nullable: true }) input: string | null;
  @Column({ type: 'varchar', length: 10, default: 'queued' }) status: RunStatus;
  @Column({ type: 'boolean', default: false }) cancelRequested: boolean;
  @Column({ type: 'timestamptz', precision: 3, nullable: true }) startedAt: Date | null;
  @Column({ type: 'timestamptz', precision: 3, nullable: true }) finishedAt: Date | null;
  @Column({ type: 'integer', default: 0 }) cost: number;
  @Column({ type: 'uuid', nullable: true }) chatId: string | null;
  @Column({ type: 'varchar', length: 50, nullable: true }) errorCode: string | null;
  @Column({ type: 'text', nullable: true }) errorMessage: string | null;
  @Column({ type: 'jsonb', default: () => `'[]'` }) steps: StepRecord[];
  @CreateDateColumn({ type: 'timestamptz', precision: 3 }) createdAt: Date;
}
