import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AiModule } from '../ai';
import { ModelsModule } from '../models/models.module';
import { ChatsModule } from '../chats/chats.module';
import { JobsModule } from '../jobs/jobs.module';
import { UsersModule } from '../users/users.module';
import { RunSweep } from './run-sweep.service';
import { TaskRun } from './task-run.entity';
import { TaskRunner } from './task-runner';
import { TaskRunsService } from './task-runs.service';
import { TaskScheduler } from './task-scheduler';
import { Task } from './task.entity';
import { TasksController } from './tasks.controller';
import { TasksService } from './tasks.service';
import { ConfigSliceModule } from '../config/config-slice.module';
import { tasksConfig } from './tasks.config';

/** Scheduled tasks and workflows, run through the job queue and metered by AiRunner. */
@Module({
  imports: [
    ConfigSliceModule.forFeature(tasksConfig),
    TypeOrmModule.forFeature([Task, TaskRun]),
    AiModule,
    ModelsModule,
    ChatsModule,
    JobsModule,
    UsersModule,
  ],
  controllers: [TasksController],
  providers: [TasksService, TaskRunsService, TaskRunner, TaskScheduler, RunSweep],
})
export class TasksModule {}
