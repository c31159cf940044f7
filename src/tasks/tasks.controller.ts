import {
  Body,
  Controller,
  Delete,
  Get,
  HttpCode,
  Param,
  ParseUUIDPipe,
  Patch,
  Post,
  Query,
} from '@nestjs/common';
import { ApiAcceptedResponse, ApiCreatedResponse, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { CurrentUser } from '../common/auth/auth.decorators';
import type { SessionUser } from '../common/auth/session-user';
import { Endpoint } from '../common/openapi/endpoint.decorator';
import { PageQueryDto } from '../common/pagination/pagination';
import { CreateTaskDto, RunTaskDto, UpdateTaskDto } from './dto/task-input.dto';
import { TASK_EXAMPLE, WORKFLOW_EXAMPLE } from './dto/task-examples';
import {
  mapRun,
  mapTask,
  TaskDeletedDto,
  TaskDetailDto,
  TaskDto,
  TaskRunDto,
  TaskRunPageDto,
} from './dto/task.dto';
import { TaskRunsService } from './task-runs.service';
import { TasksService } from './tasks.service';

const INVALID = {
  status: 400,
  description:
    'Invalid input (`VALIDATION_FAILED` naming the field: cron, time zone, a step referencing a ' +
    'later step), unknown model (`UNKNOWN_MODEL`), or runs closer than the plan allows ' +
    '(`SCHEDULE_TOO_FREQUENT`)',
};
const NOT_MINE = { status: 404, description: 'No such task of yours (`NOT_FOUND`)' };

/** Scheduled tasks and workflows of the session user; envelope C. */
@ApiTags('tasks')
@Controller('api/tasks')
export class TasksController {
  constructor(
    private readonly tasks: TasksService,
    private readonly runs: TaskRunsService,
  ) {}

  @Post()
  @Endpoint({
    summary: 'Create a scheduled task or workflow',
    access: 'session',
    errors: [
      INVALID,
      { status: 404, description: '`target.chatId` is not a chat you can write to (`NOT_FOUND`)' },
      { status: 409, description: "The plan's number of tasks is reached (`TASK_LIMIT_REACHED`)" },
    ],
    body: { type: CreateTaskDto, example: TASK_EXAMPLE },
  })
  @ApiCreatedResponse({ type: TaskDto, description: 'with `nextRunAt`' })
  async create(@CurrentUser() user: SessionUser, @Body() dto: CreateTaskDto): Promise<TaskDto> {
    return mapTask(await this.tasks.create(user, dto));
  }

  @Get()
  @Endpoint({ summary: 'List my tasks', access: 'session' })
  @ApiOkResponse({ type: [TaskDto], description: 'oldest first; at most 50 (the PRO limit)' })
  async list(@CurrentUser() user: SessionUser): Promise<TaskDto[]> {
    return (await this.tasks.list(user)).map(mapTask);
  }

  @Get(':id')
  @Endpoint({
    summary: 'Read a task and its next 5 run times',
    access: 'session',
    errors: [NOT_MINE],
  })
  @ApiOkResponse({ type: TaskDetailDto })
  async get(
    @CurrentUser() user: SessionUser,
    @Param('id', ParseUUIDPipe) id: string,
  ): Promise<TaskDetailDto> {
    const task = await this.tasks.get(user, id);
    return { ...mapTask(task), nextRuns: this.tasks.upcoming(task).map((d) => d.toISOString()) };
  }

  @Patch(':id')
  @Endpoint({
    summary: 'Change a task',
    access: 'session',
    errors: [INVALID, NOT_MINE],
    body: { type: UpdateTaskDto, example: { schedule: { cron: '30 7 * * *', timezone: 'UTC' } } },
  })
  @ApiOkResponse({ type: TaskDto })
  async update(
    @CurrentUser() user: SessionUser,
    @Param('id', ParseUUIDPipe) id: string,
    @Body() dto: UpdateTaskDto,
  ): Promise<TaskDto> {
    return mapTask(await this.tasks.update(user, id, dto));
  }

  @Delete(':id')
  @HttpCode(200)
  @Endpoint({ summary: 'Delete a task and its run history', access: 'session', errors: [NOT_MINE] })
  @ApiOkResponse({ type: TaskDeletedDto })
  async remove(
    @CurrentUser() user: SessionUser,
    @Param('id', ParseUUIDPipe) id: string,
  ): Promise<TaskDeletedDto> {
    await this.tasks.remove(user, id);
    return { id, deleted: true };
  }

  @Post(':id/run')
  @HttpCode(202)
  @Endpoint({
    summary: 'Run a task now (a workflow with an input)',
    access: 'session',
    errors: [
      NOT_MINE,
      {
        status: 413,
        description:
          'With the input filled in, a step’s prompt would pass the request limit (`PAYLOAD_TOO_LARGE`)',
      },
      {
        status: 429,
        description: 'Too many manual runs this minute (`RATE_LIMITED`, `Retry-After`)',
      },
    ],
    body: { type: RunTaskDto, example: { input: WORKFLOW_EXAMPLE.input } },
  })
  @ApiAcceptedResponse({ type: TaskRunDto, description: 'the queued run' })
  async run(
    @CurrentUser() user: SessionUser,
    @Param('id', ParseUUIDPipe) id: string,
    @Body() dto: RunTaskDto,
  ): Promise<TaskRunDto> {
    return mapRun(await this.runs.runNow(user, id, dto.input));
  }

  @Post(':id/pause')
  @HttpCode(200)
  @Endpoint({ summary: 'Pause a task', access: 'session', errors: [NOT_MINE] })
  @ApiOkResponse({ type: TaskDto })
  async pause(
    @CurrentUser() user: SessionUser,
    @Param('id', ParseUUIDPipe) id: string,
  ): Promise<TaskDto> {
    return mapTask(await this.tasks.pause(user, id));
  }

  @Post(':id/resume')
  @HttpCode(200)
  @Endpoint({
    summary: 'Resume a task from now',
    access: 'session',
    errors: [
      NOT_MINE,
      {
        status: 400,
        description: 'The schedule is now too frequent for the plan (`SCHEDULE_TOO_FREQUENT`)',
      },
    ],
  })
  @ApiOkResponse({ type: TaskDto })
  async resume(
    @CurrentUser() user: SessionUser,
    @Param('id', ParseUUIDPipe) id: string,
  ): Promise<TaskDto> {
    return mapTask(await this.tasks.resume(user, id));
  }

  @Get(':id/runs')
  @Endpoint({ summary: "List a task's runs", access: 'session', errors: [NOT_MINE] })
  @ApiOkResponse({ type: TaskRunPageDto, description: 'newest first' })
  async listRuns(
    @CurrentUser() user: SessionUser,
    @Param('id', ParseUUIDPipe) id: string,
    @Query() q: PageQueryDto,
  ): Promise<TaskRunPageDto> {
    const page = await this.runs.list(user, id, q.limit, q.cursor);
    return { data: page.data.map(mapRun), nextCursor: page.nextCursor };
  }

  @Get(':id/runs/:runId')
  @Endpoint({
    summary: 'Read a run, with each step’s output and cost',
    access: 'session',
    errors: [NOT_MINE],
  })
  @ApiOkResponse({ type: TaskRunDto })
  async getRun(
    @CurrentUser() user: SessionUser,
    @Param('id', ParseUUIDPipe) id: string,
    @Param('runId', ParseUUIDPipe) runId: string,
  ): Promise<TaskRunDto> {
    return mapRun(await this.runs.get(user, id, runId));
  }

  @Post(':id/runs/:runId/cancel')
  @HttpCode(200)
  @Endpoint({
    summary: 'Cancel a queued or running run',
    access: 'session',
    errors: [NOT_MINE, { status: 409, description: 'The run already finished (`CONFLICT`)' }],
  })
  @ApiOkResponse({
    type: TaskRunDto,
    description:
      'queued: now `cancelled`; running: `running` until the call is aborted and charged',
  })
  async cancel(
    @CurrentUser() user: SessionUser,
    @Param('id', ParseUUIDPipe) id: string,
    @Param('runId', ParseUUIDPipe) runId: string,
  ): Promise<TaskRunDto> {
    return mapRun(await this.runs.cancel(user, id, runId));
  }
}
