import { Inject, Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { tasksConfig } from './tasks.config';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { AiRunner, type GenerateDto } from '../ai';
import { ChatsService } from '../chats/chats.service';
import type { SessionUser } from '../common/auth/session-user';
import { Clock } from '../common/clock/clock';
import { AppError, CommonErrorCode } from '../common/errors/app-error';
import { CreditsErrorCode } from '../credits/credits.errors';
import type { QueuedJob } from '../jobs/jobs.types';
import { JobsService } from '../jobs/jobs.service';
import { UsersService } from '../users/users.service';
import { failRun, unexpectedRunError } from './run-failure';
import { recordOutcome, type RunResult } from './run-outcome';
import { RUN_QUEUE, type RunJob } from './task-runs.service';
import { CANCEL_REQUESTED_SQL, START_RUN_SQL } from './task-runs.sql';
import { type StepRecord, TaskRun } from './task-run.entity';
import { Task } from './task.entity';
import { renderMessages, stepsOf } from './render-step';

/** Retries of a run's job after its first attempt, when the attempt threw (not a business outcome). */
const RUN_RETRY_LIMIT = 2;

/** Admission refusals that make a run `skipped` rather than `failed`: the owner cannot afford it now. */
const SKIP_CODES = new Set<string>([
  CreditsErrorCode.INSUFFICIENT_CREDITS,
  CreditsErrorCode.DAILY_LIMIT_REACHED,
  CreditsErrorCode.BUDGET_EXCEEDED,
]);

/**
 * Executes a run (the handler of the `tasks.run` queue, on whichever instance takes the job):
 * each step is a metered generation for the owner through AiRunner (admission, hold,
 * settlement, saving), in order, feeding the next. A retried job (its instance died) resumes
 * after the steps already recorded. Business outcomes (skipped, failed, cancelled) complete the
 * job; only infrastructure errors throw, so that the queue retries.
 */
@Injectable()
export class TaskRunner implements OnModuleInit {
  private readonly logger = new Logger('TaskRunner');
  private readonly config: ConfigType<typeof tasksConfig>;

  constructor(
    @InjectRepository(TaskRun) private readonly runs: Repository<TaskRun>,
    @InjectRepository(Task) private readonly tasks: Repository<Task>,
    private readonly jobs: JobsService,
    private readonly ai: AiRunner,
    private readonly chats: ChatsService,
    private readonly users: UsersService,
    private readonly clock: Clock,
    @Inject(tasksConfig.KEY) settings: ConfigType<typeof tasksConfig>,
  ) {
    this.config = settings;
  }

  async onModuleInit(): Promise<void> {
    await this.jobs.registerHandler(RUN_QUEUE, (job) => this.handle(job), {
      unique: true,
      retryLimit: RUN_RETRY_LIMIT,
      retryDelaySeconds: this.config.runRetryDelaySeconds,
      heartbeatSeconds: this.config.runHeartbeatSeconds,
      concurrency: 2,
    });
  }

  /** Runs the job's run once; a run already finished (or cancelled while queued) is left alone. */
  async handle(job: QueuedJob<RunJob>): Promise<void> {
    const [rows] = await this.runs.query(START_RUN_SQL, [job.data.runId, this.clock.now()]);
    if (!rows.length) return;
    const run = await this.runs.findOneByOrFail({ id: job.data.runId });
    const task = await this.tasks.findOneBy({ id: run.taskId });
    if (!task) return; // deleted meanwhile: its runs went with it
    // Only a cancel aborts the call. The job's own signal (this instance stopping) is left
    // alone: a run cut by a shutdown is retried elsewhere, not recorded as cancelled.
    const abort = new AbortController();
    const poll = setInterval(() => {
      this.runs
        .query(CANCEL_REQUESTED_SQL, [run.id])
        .then((r: { cancelRequested: boolean }[]) => r[0]?.cancelRequested && abort.abort())
        .catch(() => undefined);
    }, this.config.cancelPollMs);
    try {
      const result = await this.execute(task, run, abort.signal);
      await recordOutcome(this.runs.manager, task, run, result, this.clock.now());
    } catch (err) {
      // Earlier attempts throw so that the queue retries; the last one records the failure,
      // so a run never stays `running` after its job has failed for good.
      if (job.retryCount < RUN_RETRY_LIMIT) throw err;
      this.logger.error(`Task run ${run.id} failed for good: ${(err as Error).message}`);
      await failRun(this.runs.manager, run.id, unexpectedRunError(err), this.clock.now());
    } finally {
      clearInterval(poll);
    }
  }

  private async execute(task: Task, run: TaskRun, signal: AbortSignal): Promise<RunResult> {
    const owner = await this.users.get(task.userId);
    const user: SessionUser = {
      id: owner.id,
      email: owner.email,
      name: owner.name,
      role: owner.role,
    };
    const steps = stepsOf(task);
    const done: StepRecord[] = run.steps.filter((s) => s.status === 'succeeded');
    const outputs: Record<string, string> = Object.fromEntries(done.map((s) => [s.name, s.output]));
    let chatId = run.chatId ?? (task.targetMode === 'append' ? task.targetChatId : null);
    if (task.targetMode === 'append' && chatId) {
      try {
        await this.chats.requireChatAccess(user, chatId, 'read');
      } catch (err) {
        if (!(err instanceof AppError)) throw err; // the database, not the access: retried
        return { status: 'failed', steps: done, chatId, error: errorOf(err), lostAccess: true };
      }
    }
    for (const step of steps.slice(done.length)) {
      if (signal.aborted) return { status: 'cancelled', steps: done, chatId, error: null };
      let record: StepRecord;
      try {
        const dto: GenerateDto = {
          ...(task.prompt.settings ?? {}),
          modelId: step.modelId ?? task.prompt.modelId,
          messages: renderMessages(step.messages, run.input ?? '', outputs),
          ...(chatId ? { chatId } : {}),
        };
        const out = await this.ai.run(user, dto, signal);
        if (!chatId) chatId = await this.titleNewChat(user, task, out.chatId);
        const cut = out.interruption;
        record = {
          name: step.name,
          status: cut === undefined ? 'succeeded' : cut === 'aborted' ? 'cancelled' : 'failed',
          output: out.text,
          usage: out.usage,
          cost: out.cost,
          error: cut === undefined || cut === 'aborted' ? null : errorOf(cut, step.name),
        };
      } catch (err) {
        if (!(err instanceof AppError)) throw err;
        const status = signal.aborted
          ? 'cancelled'
          : SKIP_CODES.has(err.code)
            ? 'skipped'
            : 'failed';
        record = {
          name: step.name,
          status,
          output: '',
          usage: null,
          cost: 0,
          error: errorOf(err, step.name),
        };
      }
      done.push(record);
      outputs[step.name] = record.output;
      await this.runs.update({ id: run.id }, { steps: done, chatId });
      if (record.status !== 'succeeded') {
        return {
          status: record.status,
          steps: done,
          chatId,
          error: record.status === 'cancelled' ? null : record.error,
          lostAccess: record.error?.code === CommonErrorCode.NOT_FOUND,
        };
      }
    }
    return { status: 'succeeded', steps: done, chatId, error: null };
  }

  /** A run's new chat is titled "<task name> · <date in the task's zone>". */
  private async titleNewChat(user: SessionUser, task: Task, chatId: string): Promise<string> {
    const date = new Intl.DateTimeFormat('en-CA', { timeZone: task.timezone }).format(
      this.clock.now(),
    );
    const title = `${task.name} · ${date}`;
    await this.chats
      .update(user, chatId, { title })
      .catch((err: Error) => this.logger.warn(`Could not title chat ${chatId}: ${err.message}`));
    return chatId;
  }
}

function errorOf(err: unknown, step?: string): { code: string; message: string } {
  const code = err instanceof AppError ? err.code : CommonErrorCode.INTERNAL_ERROR;
  const message = err instanceof Error ? err.message : String(err);
  return { code, message: step ? `step "${step}": ${message}` : message };
}
