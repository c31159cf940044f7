import { ApiProperty, ApiPropertyOptional, type ApiPropertyOptions } from '@nestjs/swagger';
import { RUN_STATUSES, type RunStatus, type StepRecord, type TaskRun } from '../task-run.entity';
import { TARGET_MODES, type Task, type TaskPrompt, type TargetMode } from '../task.entity';
import { TaskPromptDto, TaskScheduleDto } from './task-input.dto';

export class TaskTargetViewDto {
  @ApiProperty({ enum: TARGET_MODES }) mode: TargetMode;
  @ApiProperty({ format: 'uuid', nullable: true, type: String }) chatId: string | null;
}

/** A task as answered by every task route. */
export class TaskDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ example: 'Morning news digest' }) name: string;
  @ApiProperty({ type: TaskScheduleDto }) schedule: TaskScheduleDto;
  @ApiProperty({ type: TaskPromptDto }) prompt: TaskPrompt;
  @ApiProperty({ type: TaskTargetViewDto }) target: TaskTargetViewDto;
  @ApiProperty({ description: 'false while paused (by you, or after failures)' }) enabled: boolean;
  @ApiProperty({
    type: String,
    nullable: true,
    example: null,
    description: 'why the task paused itself (5 failed or skipped runs in a row, lost access)',
  })
  pausedReason: string | null;
  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    description: 'next scheduled run; null while paused',
  })
  nextRunAt: string | null;
  @ApiProperty({ type: 'integer', description: 'failed or skipped runs in a row' })
  consecutiveFailures: number;
  @ApiProperty({ format: 'date-time' }) createdAt: string;
  @ApiProperty({ format: 'date-time' }) updatedAt: string;
}

/** GET /api/tasks/{id}: the task and its next 5 scheduled times. */
export class TaskDetailDto extends TaskDto {
  @ApiProperty({
    type: [String],
    format: 'date-time',
    description: 'the next 5 run times (empty while paused)',
  })
  nextRuns: string[];
}

/** DELETE /api/tasks/{id}. */
export class TaskDeletedDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ enum: [true] }) deleted: true;
}

export function mapTask(t: Task): TaskDto {
  return {
    id: t.id,
    name: t.name,
    schedule: { cron: t.cron, timezone: t.timezone },
    prompt: t.prompt,
    target: { mode: t.targetMode, chatId: t.targetChatId },
    enabled: t.enabled,
    pausedReason: t.pausedReason,
    nextRunAt: t.nextRunAt?.toISOString() ?? null,
    consecutiveFailures: t.consecutiveFailures,
    createdAt: t.createdAt.toISOString(),
    updatedAt: t.updatedAt.toISOString(),
  };
}

/** Inline, nullable object schemas: a nullable `$ref` is not expressible in OpenAPI 3.0. */
const NULLABLE_ERROR: ApiPropertyOptions = {
  type: 'object',
  nullable: true,
  required: ['code', 'message'],
  properties: {
    code: { type: 'string', example: 'INSUFFICIENT_CREDITS' },
    message: { type: 'string', example: 'step "summary": Insufficient credits' },
  },
};
const NULLABLE_USAGE: ApiPropertyOptions = {
  type: 'object',
  nullable: true,
  required: ['promptTokens', 'completionTokens'],
  properties: {
    promptTokens: { type: 'integer' },
    completionTokens: { type: 'integer' },
  },
};

export class RunErrorDto {
  @ApiProperty({ example: 'INSUFFICIENT_CREDITS' }) code: string;
  @ApiProperty({ example: 'step "summary": Insufficient credits' }) message: string;
}

export class RunUsageDto {
  @ApiProperty({ type: 'integer' }) promptTokens: number;
  @ApiProperty({ type: 'integer' }) completionTokens: number;
}

export class TaskRunStepDto {
  @ApiProperty({ example: 'draft', description: '`prompt` for a single-prompt task' })
  name: string;
  @ApiProperty({ enum: ['succeeded', 'failed', 'skipped', 'cancelled'] }) status: string;
  @ApiProperty({ description: 'the reply (partial when cancelled)' }) output: string;
  @ApiProperty(NULLABLE_USAGE) usage: RunUsageDto | null;
  @ApiProperty({ type: 'integer', description: 'credits charged for this step' }) cost: number;
  @ApiProperty({ ...NULLABLE_ERROR, description: 'why the step failed, was skipped or cancelled' })
  error: RunErrorDto | null;
}

/** One run of a task. */
export class TaskRunDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ format: 'uuid' }) taskId: string;
  @ApiProperty({ enum: RUN_STATUSES }) status: RunStatus;
  @ApiProperty({ enum: ['schedule', 'manual'] }) trigger: 'schedule' | 'manual';
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) scheduledFor: string | null;
  @ApiPropertyOptional({ type: String, nullable: true }) input: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) startedAt: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) finishedAt: string | null;
  @ApiProperty({ type: 'integer', description: 'credits charged, all steps together' })
  cost: number;
  @ApiProperty({ type: String, format: 'uuid', nullable: true }) chatId: string | null;
  @ApiProperty({ ...NULLABLE_ERROR, description: 'why the run failed or was skipped' })
  error: RunErrorDto | null;
  @ApiProperty({ type: [TaskRunStepDto], description: 'in order; the steps that ran' })
  steps: TaskRunStepDto[];
  @ApiProperty({ format: 'date-time' }) createdAt: string;
}

/** A page of runs (`?limit` up to 100, `?cursor` = the previous page's `nextCursor`). */
export class TaskRunPageDto {
  @ApiProperty({ type: [TaskRunDto] }) data: TaskRunDto[];
  @ApiProperty({ type: String, nullable: true, description: 'null on the last page' })
  nextCursor: string | null;
}

export function mapRun(r: TaskRun): TaskRunDto {
  return {
    id: r.id,
    taskId: r.taskId,
    status: r.status,
    trigger: r.trigger,
    scheduledFor: r.scheduledFor?.toISOString() ?? null,
    input: r.input,
    startedAt: r.startedAt?.toISOString() ?? null,
    finishedAt: r.finishedAt?.toISOString() ?? null,
    cost: r.cost,
    chatId: r.chatId,
    error: r.errorCode ? { code: r.errorCode, message: r.errorMessage ?? '' } : null,
    // Fields named one by one: jsonb keeps keys in its own order, and answers read better in ours.
    steps: r.steps.map((s: StepRecord) => ({
      name: s.name,
      status: s.status,
      output: s.output,
      usage: s.usage,
      cost: s.cost,
      error: s.error,
    })),
    createdAt: r.createdAt.toISOString(),
  };
}
