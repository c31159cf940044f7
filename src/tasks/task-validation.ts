import { AppError } from '../common/errors/app-error';
import { TasksErrorCode } from './tasks.errors';
import { ValidationFailedError } from '../common/validation/validation.pipe';
import type { ModelCatalogue } from '../models/model-catalogue';
import { checkParameters } from '../models/model-parameters';
import type { TaskPromptDto } from './dto/task-input.dto';
import { taskLimits } from './plan-limits';
import { parseSchedule, ScheduleError, shortestGapMinutes, type TaskSchedule } from './schedule';
import type { TaskPrompt } from './task.entity';
import { checkTemplates } from './templating';

const invalid = (property: string, message: string) =>
  new ValidationFailedError([{ property, constraint: 'taskRule', message }]);

/**
 * A schedule the plan allows: parsed (VALIDATION_FAILED naming `schedule.cron` or
 * `schedule.timezone`), and no two runs closer than the plan's interval (SCHEDULE_TOO_FREQUENT,
 * 400, the message names the interval).
 */
export function checkSchedule(schedule: TaskSchedule, plan: string, now: Date): void {
  try {
    parseSchedule(schedule);
  } catch (err) {
    if (err instanceof ScheduleError) throw invalid(err.field, err.message);
    throw err;
  }
  const { minIntervalMinutes } = taskLimits(plan);
  if (shortestGapMinutes(schedule, now) < minIntervalMinutes) {
    throw new AppError(
      TasksErrorCode.SCHEDULE_TOO_FREQUENT,
      `Your plan allows at least ${minIntervalMinutes} minutes between two runs of a task`,
    );
  }
}

/**
 * Normalises a prompt: exactly one of `messages` or `steps`; every step has a known model
 * (its own or the prompt's; UNKNOWN_MODEL, 400) and a unique name; references point at earlier
 * steps only (VALIDATION_FAILED naming the message). Returns what is stored.
 */
export function checkPrompt(dto: TaskPromptDto, catalogue: ModelCatalogue): TaskPrompt {
  if ((dto.messages === undefined) === (dto.steps === undefined)) {
    throw invalid('prompt', 'prompt: give either messages (one prompt) or steps (a workflow)');
  }
  const settings =
    dto.settings && Object.keys(dto.settings).length ? { ...dto.settings } : undefined;
  if (dto.messages) {
    if (!dto.modelId) throw invalid('prompt.modelId', 'prompt.modelId: name a model');
    fits(catalogue, dto.modelId, settings);
    const [stray] = checkTemplates([{ name: 'prompt', messages: dto.messages }]);
    if (stray) {
      const field = stray.field.replace('prompt.steps.0.', 'prompt.');
      throw invalid(field, `${field}: only {{input}} can be used in a single prompt`);
    }
    return { modelId: dto.modelId, messages: plain(dto.messages), ...(settings && { settings }) };
  }
  const steps = dto.steps!;
  steps.forEach((s, i) => {
    const modelId = s.modelId ?? dto.modelId;
    if (!modelId)
      throw invalid(`prompt.steps.${i}.modelId`, `prompt.steps.${i}.modelId: name a model`);
    fits(catalogue, modelId, settings);
    if (steps.findIndex((o) => o.name === s.name) !== i) {
      throw invalid(`prompt.steps.${i}.name`, `prompt.steps.${i}.name: "${s.name}" is used twice`);
    }
  });
  const problems = checkTemplates(steps);
  if (problems.length) {
    throw new ValidationFailedError(
      problems.map((p) => ({ property: p.field, constraint: 'template', message: p.message })),
    );
  }
  return {
    ...(dto.modelId && { modelId: dto.modelId }),
    ...(settings && { settings }),
    steps: steps.map((s) => ({
      name: s.name,
      ...(s.modelId && { modelId: s.modelId }),
      messages: plain(s.messages),
    })),
  };
}

/** The model exists (UNKNOWN_MODEL) and accepts the settings (as an AI request would check). */
function fits(catalogue: ModelCatalogue, modelId: string, settings: TaskPrompt['settings']): void {
  const model = catalogue.require(modelId);
  checkParameters(model.id, model.parameters, settings ?? {});
}

function plain(messages: { role: string; content: string }[]) {
  return messages.map((m) => ({ role: m.role as 'user', content: m.content }));
}
