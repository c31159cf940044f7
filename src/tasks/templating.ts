/**
 * Workflow templating (issue 17 §3): a step's message text may say `{{input}}` (the run's input
 * text, empty when none) and `{{steps.<name>.output}}` (the reply of an earlier step). Anything
 * else between double braces is refused at create time, so a typo cannot reach a model.
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

/** Replaces the placeholders of an already checked text with the run input and step outputs. */
export function render(text: string, input: string, outputs: Record<string, string>): string {
  return text.replace(PLACEHOLDER, (whole, ref: string) => {
    if (ref === 'input') return input;
    const name = STEP_OUTPUT.exec(ref)?.[1];
    return name !== undefined && name in outputs ? outputs[name] : whole;
  });
}
