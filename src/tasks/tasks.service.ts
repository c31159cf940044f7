import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { DataSource, Repository } from 'typeorm';
import { ModelCatalogue } from '../models/model-catalogue';
import { ChatsService } from '../chats/chats.service';
import type { SessionUser } from '../common/auth/session-user';
import { Clock } from '../common/clock/clock';
import { AppError, CommonErrorCode } from '../common/errors/app-error';
import { TasksErrorCode } from './tasks.errors';
import { ValidationFailedError } from '../common/validation/validation.pipe';
import { UsersService } from '../users/users.service';
import type { CreateTaskDto, TaskTargetDto, UpdateTaskDto } from './dto/task-input.dto';
import { taskLimits } from './plan-limits';
import { nextRun, nextRuns } from './schedule';
import { checkPrompt, checkSchedule } from './task-validation';
import { Task } from './task.entity';
import { LOCK_OWNER_SQL } from './tasks.sql';

/** Tasks a user may list at once (the largest plan's limit). */
export const MAX_TASKS_LISTED = 50;

/**
 * Scheduled tasks: create, read, change, pause and resume, each checked against
 * the owner's plan. Another user's task is 404. Runs live in TaskRunsService.
 */
@Injectable()
export class TasksService {
  constructor(
    @InjectRepository(Task) private readonly tasks: Repository<Task>,
    private readonly dataSource: DataSource,
    private readonly catalogue: ModelCatalogue,
    private readonly chats: ChatsService,
    private readonly users: UsersService,
    private readonly clock: Clock,
  ) {}

  /**
   * Creates a task. Throws VALIDATION_FAILED / UNKNOWN_MODEL (400), SCHEDULE_TOO_FREQUENT (400),
   * NOT_FOUND (404, an `append` chat you cannot write to), TASK_LIMIT_REACHED (409). The count is checked under a lock on the user row, so parallel creates cannot
   * pass the limit together.
   */
  async create(user: SessionUser, dto: CreateTaskDto): Promise<Task> {
    const { plan } = await this.users.get(user.id);
    const now = this.clock.now();
    checkSchedule(dto.schedule, plan, now);
    const prompt = checkPrompt(dto.prompt, this.catalogue);
    await this.checkTarget(user, dto.target);
    const enabled = dto.enabled ?? true;
    return this.dataSource.transaction(async (m) => {
      await m.query(LOCK_OWNER_SQL, [user.id]);
      const count = await m.count(Task, { where: { userId: user.id } });
      const { maxTasks } = taskLimits(plan);
      if (count >= maxTasks) {
        throw new AppError(
          TasksErrorCode.TASK_LIMIT_REACHED,
          `Your plan allows ${maxTasks} scheduled tasks`,
        );
      }
      return m.save(
        m.create(Task, {
          userId: user.id,
          name: dto.name,
          cron: dto.schedule.cron.trim(),
          timezone: dto.schedule.timezone,
          prompt,
          targetMode: dto.target.mode,
          targetChatId: dto.target.mode === 'append' ? dto.target.chatId! : null,
          enabled,
          nextRunAt: enabled ? nextRun(dto.schedule, now) : null,
        }),
      );
    });
  }

  /** My tasks, oldest first (at most 50, the largest plan's limit). */
  list(user: SessionUser): Promise<Task[]> {
    return this.tasks.find({
      where: { userId: user.id },
      order: { createdAt: 'ASC', id: 'ASC' },
      take: MAX_TASKS_LISTED,
    });
  }

  /** The task, if it is mine; NOT_FOUND (404) otherwise. */
  async get(user: SessionUser, id: string): Promise<Task> {
    const task = await this.tasks.findOneBy({ id, userId: user.id });
    if (!task) throw new AppError(CommonErrorCode.NOT_FOUND, 'Task not found');
    return task;
  }

  /** The next `n` run times of an enabled task (none while paused). */
  upcoming(task: Task, n = 5): Date[] {
    if (!task.enabled) return [];
    return nextRuns({ cron: task.cron, timezone: task.timezone }, n, this.clock.now());
  }

  /**
   * Changes any field; `schedule`, `prompt` and `target` are replaced whole and checked as at
   * create. A new schedule (or enabling) recomputes `nextRunAt`. Errors as `create`, without
   * the count.
   */
  async update(user: SessionUser, id: string, dto: UpdateTaskDto): Promise<Task> {
    const task = await this.get(user, id);
    const { plan } = await this.users.get(user.id);
    const now = this.clock.now();
    if (dto.schedule) {
      checkSchedule(dto.schedule, plan, now);
      task.cron = dto.schedule.cron.trim();
      task.timezone = dto.schedule.timezone;
    }
    if (dto.prompt) task.prompt = checkPrompt(dto.prompt, this.catalogue);
    if (dto.target) {
      await this.checkTarget(user, dto.target);
      task.targetMode = dto.target.mode;
      task.targetChatId = dto.target.mode === 'append' ? dto.target.chatId! : null;
    }
    if (dto.name !== undefined) task.name = dto.name;
    if (dto.enabled === true && !task.enabled) this.enableFields(task, plan, now);
    else if (dto.enabled === false) this.pauseFields(task, null);
    else if (task.enabled && dto.schedule) task.nextRunAt = nextRun(scheduleOf(task), now);
    return this.tasks.save(task);
  }

  /** Deletes the task and its runs' history (a running run finishes; its charges stand). */
  async remove(user: SessionUser, id: string): Promise<void> {
    const task = await this.get(user, id);
    await this.tasks.delete({ id: task.id });
  }

  /** Stops scheduling the task (runs on demand still work). */
  async pause(user: SessionUser, id: string): Promise<Task> {
    const task = await this.get(user, id);
    this.pauseFields(task, null);
    return this.tasks.save(task);
  }

  /**
   * Schedules the task again from now (no catching up on runs missed while paused), clearing
   * `pausedReason` and the failure count. The schedule is checked against the current plan
   * (SCHEDULE_TOO_FREQUENT after a downgrade).
   */
  async resume(user: SessionUser, id: string): Promise<Task> {
    const task = await this.get(user, id);
    const { plan } = await this.users.get(user.id);
    this.enableFields(task, plan, this.clock.now());
    return this.tasks.save(task);
  }

  private enableFields(task: Task, plan: string, now: Date): void {
    checkSchedule(scheduleOf(task), plan, now);
    task.enabled = true;
    task.pausedReason = null;
    task.consecutiveFailures = 0;
    task.nextRunAt = nextRun(scheduleOf(task), now);
  }

  private pauseFields(task: Task, reason: string | null): void {
    task.enabled = false;
    task.nextRunAt = null;
    task.pausedReason = reason;
  }

  /** `append` needs a chat the owner can add messages to: own, or shared with one of its teams. */
  private async checkTarget(user: SessionUser, target: TaskTargetDto): Promise<void> {
    if (target.mode !== 'append') return;
    if (!target.chatId) {
      throw new ValidationFailedError([
        {
          property: 'target.chatId',
          constraint: 'isDefined',
          message: 'target.chatId: required with mode append',
        },
      ]);
    }
    // As for AI replies: any member who can read a team-shared chat may add exchanges to it.
    await this.chats.requireChatAccess(user, target.chatId, 'read');
  }
}

const scheduleOf = (t: Task) => ({ cron: t.cron, timezone: t.timezone });
