import { ApiProperty, ApiPropertyOptional, OmitType, PartialType } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsOptional,
  IsString,
  IsUUID,
  Matches,
  MaxLength,
  MinLength,
  ValidateIf,
  ValidateNested,
} from 'class-validator';
import { ChatMessageDto } from '../../ai';
import { ModelParametersDto } from '../../models/dto/model-parameters.dto';
import { IsBoundedString } from '../../common/validation/validators';
import { TARGET_MODES, type TargetMode } from '../task.entity';

/** Longest run input (`{{input}}`), in characters. */
export const MAX_RUN_INPUT = 20_000;

export class TaskScheduleDto {
  @ApiProperty({
    example: '0 8 * * 1-5',
    description: 'standard 5-field cron: minute hour day-of-month month day-of-week',
  })
  @IsString()
  @MaxLength(100)
  cron: string;

  @ApiProperty({ example: 'Europe/Paris', description: 'IANA time zone the cron is read in' })
  @IsString()
  @MaxLength(64)
  timezone: string;
}

/** Model parameters of a task (those of POST /api/ai/generate, without the model). */
export class TaskSettingsDto extends OmitType(ModelParametersDto, ['modelId'] as const) {}

export class TaskStepDto {
  @ApiProperty({
    example: 'draft',
    description: 'letters, digits, `_` or `-`, starting with a letter; unique in the workflow',
  })
  @IsString()
  @Matches(/^[A-Za-z][\w-]{0,39}$/, { message: 'name: 1-40 letters, digits, _ or -' })
  name: string;

  @ApiPropertyOptional({ example: 'gpt-4o-mini', description: "else the prompt's `modelId`" })
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  modelId?: string;

  @ApiProperty({
    type: [ChatMessageDto],
    minItems: 1,
    maxItems: 50,
    description: 'may say `{{input}}` and `{{steps.<earlier step>.output}}`',
  })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(50)
  @ValidateNested({ each: true })
  @Type(() => ChatMessageDto)
  messages: ChatMessageDto[];
}

/** One prompt (`messages`) or a workflow (`steps`), exactly one of them. */
export class TaskPromptDto {
  @ApiPropertyOptional({
    example: 'gpt-4o-mini',
    description: 'the model; required unless every step names its own',
  })
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  modelId?: string;

  @ApiPropertyOptional({
    type: [ChatMessageDto],
    minItems: 1,
    maxItems: 50,
    description: 'a single prompt; may say `{{input}}`',
  })
  @ValidateIf((o: TaskPromptDto) => o.messages !== undefined || o.steps === undefined)
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(50)
  @ValidateNested({ each: true })
  @Type(() => ChatMessageDto)
  messages?: ChatMessageDto[];

  @ApiPropertyOptional({ type: TaskSettingsDto, description: 'applies to every step' })
  @IsOptional()
  @ValidateNested()
  @Type(() => TaskSettingsDto)
  settings?: TaskSettingsDto;

  @ApiPropertyOptional({
    type: [TaskStepDto],
    minItems: 2,
    maxItems: 5,
    description: 'a workflow instead of `messages`: steps run in order, each metered on its own',
  })
  @IsOptional()
  @IsArray()
  @ArrayMinSize(2)
  @ArrayMaxSize(5)
  @ValidateNested({ each: true })
  @Type(() => TaskStepDto)
  steps?: TaskStepDto[];
}

export class TaskTargetDto {
  @ApiProperty({ enum: TARGET_MODES, description: 'a new chat per run, or append to `chatId`' })
  @IsIn(TARGET_MODES)
  mode: TargetMode;

  @ApiPropertyOptional({
    format: 'uuid',
    description: 'required with `append`: a chat you can write to (own or team-shared)',
  })
  @ValidateIf((o: TaskTargetDto) => o.mode === 'append' || o.chatId !== undefined)
  @IsUUID()
  chatId?: string;
}

/** POST /api/tasks. */
export class CreateTaskDto {
  @IsBoundedString(1, 100)
  name: string;

  @ApiProperty({ type: TaskScheduleDto })
  @ValidateNested()
  @Type(() => TaskScheduleDto)
  schedule: TaskScheduleDto;

  @ApiProperty({ type: TaskPromptDto })
  @ValidateNested()
  @Type(() => TaskPromptDto)
  prompt: TaskPromptDto;

  @ApiProperty({ type: TaskTargetDto })
  @ValidateNested()
  @Type(() => TaskTargetDto)
  target: TaskTargetDto;

  @ApiPropertyOptional({ default: true, description: 'false: created paused' })
  @IsOptional()
  @IsBoolean()
  enabled?: boolean;
}

/** PATCH /api/tasks/{id}: any field of the create body; `schedule`, `prompt`, `target` whole. */
export class UpdateTaskDto extends PartialType(CreateTaskDto) {}

/** POST /api/tasks/{id}/run. */
export class RunTaskDto {
  @ApiPropertyOptional({
    example: 'Quarterly results of ACME',
    maxLength: MAX_RUN_INPUT,
    description: 'the text of `{{input}}` (empty when absent)',
  })
  @IsOptional()
  @IsString()
  @MaxLength(MAX_RUN_INPUT)
  input?: string;
}
