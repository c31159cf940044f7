import { MAX_CONTENT_CHARS } from '../ai';
import { AppError, CommonErrorCode } from '../common/errors/app-error';
import { codePoints } from '../common/text/code-points';
import type { Task, TaskStep } from './task.entity';
import { render, renderedLength, RenderTooLargeError } from './templating';

/**
 * Most UTF-16 units a step's rendered messages may take together: a code point is one or two
 * units, so anything longer is surely over MAX_CONTENT_CHARS code points. The AI admission then
 * counts the exact code points of what was rendered.
 */
export const MAX_RENDERED_UNITS = 2 * MAX_CONTENT_CHARS;

/**
 * A step's messages with their placeholders filled, `{role, content}`. Throws AppError
 * PAYLOAD_TOO_LARGE (413) when they would together pass MAX_RENDERED_UNITS, before any of the
 * oversized text is built.
 */
export function renderMessages(
  messages: TaskStep['messages'],
  input: string,
  outputs: Record<string, string>,
): { role: TaskStep['messages'][number]['role']; content: string }[] {
  let left = MAX_RENDERED_UNITS;
  try {
    return messages.map((m) => {
      const content = render(m.content, input, outputs, left);
      left -= content.length;
      return { role: m.role, content };
    });
  } catch (err) {
    if (!(err instanceof RenderTooLargeError)) throw err;
    throw tooLarge();
  }
}

/**
 * Refuses a run whose input alone would make a step's prompt too long (checked when the run is
 * asked for, so the request gets its 413 at once): the code points of each step's messages
 * rendered with `input` and empty outputs, counted without building them, against
 * MAX_CONTENT_CHARS. Throws AppError PAYLOAD_TOO_LARGE.
 */
export function checkRunInput(steps: TaskStep[], input: string): void {
  // Outputs are not known yet: each counts as empty, so the bound is a lower one.
  const outputs = Object.fromEntries(steps.map((s) => [s.name, '']));
  for (const step of steps) {
    const chars = step.messages.reduce(
      (n, m) => n + renderedLength(m.content, input, outputs, codePoints),
      0,
    );
    if (chars > MAX_CONTENT_CHARS) throw tooLarge();
  }
}

function tooLarge(): AppError {
  return new AppError(
    CommonErrorCode.PAYLOAD_TOO_LARGE,
    `The prompt with its placeholders filled would exceed ${MAX_CONTENT_CHARS} characters`,
  );
}

/** A task's steps: its workflow, or its single prompt as one step named `prompt`. */
export function stepsOf(task: Task): TaskStep[] {
  return (
    task.prompt.steps ?? [
      { name: 'prompt', modelId: task.prompt.modelId, messages: task.prompt.messages ?? [] },
    ]
  );
}
