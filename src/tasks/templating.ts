/**
 * Workflow templating: a step's message text may say `{{input}}` (the run's input text, empty
 * when none) and `{{steps.<name>.output}}` (the reply of an earlier step). Anything else between
 * double braces is refused at create time, so a typo cannot reach a model.
 *
 * Rendering is bounded: a text of many placeholders times a long input would otherwise build a
 * string of hundreds of millions of characters before any size check. The rendered size is
 * computed from the placeholder count and the replacement lengths first, and nothing is built
 * when it would pass the limit.
 */

const PLACEHOLDER = /\{\{\s*([^{}]*?)\s*\}\}/g;
const STEP_OUTPUT = /^steps\.([A-Za-z][\w-]*)\.output$/;

export interface TemplateStep {
  name: string;
  messages: { content: string }[];
}

/** A refused reference: `field` is the JSON path of the message, as validation errors name it. */
export interface TemplateProblem {
  field: string;
  message: string;
}

/**
 * Checks every placeholder of every step: `{{input}}`, or the output of a step that comes
 * earlier (not itself, not a later one, not an unknown name). Returns the problems (empty: fine).
 */
export function checkTemplates(steps: TemplateStep[]): TemplateProblem[] {
  const problems: TemplateProblem[] = [];
  const names = steps.map((s) => s.name);
  steps.forEach((step, i) => {
    step.messages.forEach((m, j) => {
      for (const [, ref] of m.content.matchAll(PLACEHOLDER)) {
        const field = `prompt.steps.${i}.messages.${j}.content`;
        if (ref === 'input') continue;
        const name = STEP_OUTPUT.exec(ref)?.[1];
        if (name === undefined) {
          problems.push({
            field,
            message: `${field}: {{${ref}}} is not a placeholder (use {{input}} or {{steps.<name>.output}})`,
          });
        } else if (!names.includes(name)) {
          problems.push({ field, message: `${field}: no step is named "${name}"` });
        } else if (names.indexOf(name) >= i) {
          problems.push({
            field,
            message: `${field}: step "${step.name}" cannot use the output of "${name}", which does not run before it`,
          });
        }
      }
    });
  });
  return problems;
}

/** Thrown by `render` when the rendered text would be longer than its limit. */
export class RenderTooLargeError extends Error {
  constructor(
    readonly length: number,
    readonly limit: number,
  ) {
    super(`The rendered prompt would be ${length} characters, over the limit of ${limit}`);
  }
}

/** What a placeholder becomes: the input, an earlier output, or itself when unknown. */
function replacement(whole: string, ref: string, input: string, outputs: Record<string, string>) {
  if (ref === 'input') return input;
  const name = STEP_OUTPUT.exec(ref)?.[1];
  return name !== undefined && name in outputs ? outputs[name] : whole;
}

/**
 * Length `text` would have once rendered, computed without building it: the text's own length,
 * minus each placeholder, plus its replacement. `measure` counts a string (default UTF-16
 * units; pass `codePoints` for characters); each distinct replacement is measured once.
 */
export function renderedLength(
  text: string,
  input: string,
  outputs: Record<string, string>,
  measure: (s: string) => number = (s) => s.length,
): number {
  const measured = new Map<string, number>();
  const size = (s: string) => {
    let n = measured.get(s);
    if (n === undefined) measured.set(s, (n = measure(s)));
    return n;
  };
  let length = measure(text);
  for (const [whole, ref] of text.matchAll(PLACEHOLDER))
    length += size(replacement(whole, ref, input, outputs)) - size(whole);
  return length;
}

/**
 * Replaces the placeholders of an already checked text with the run input and step outputs.
 * Throws RenderTooLargeError, before building anything, when the result would be longer than
 * `limit` UTF-16 units.
 */
export function render(
  text: string,
  input: string,
  outputs: Record<string, string>,
  limit = Infinity,
): string {
  const length = renderedLength(text, input, outputs);
  if (length > limit) throw new RenderTooLargeError(length, limit);
  return text.replace(PLACEHOLDER, (whole, ref: string) => replacement(whole, ref, input, outputs));
}
