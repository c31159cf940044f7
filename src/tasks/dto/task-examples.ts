import type { CreateTaskDto } from './task-input.dto';

/** A realistic single-prompt task for the OpenAPI document. */
export const TASK_EXAMPLE: CreateTaskDto = {
  name: 'Stand-up draft',
  schedule: { cron: '0 8 * * 1-5', timezone: 'Europe/Paris' },
  prompt: {
    modelId: 'gpt-4o-mini',
    messages: [{ role: 'user', content: 'Draft my stand-up notes from yesterday in 3 bullets.' }],
    settings: { maxTokens: 300 },
  },
  target: { mode: 'new_chat' },
};

/** A 3-step workflow and an input for it. */
export const WORKFLOW_EXAMPLE = {
  input: 'Quarterly results of ACME',
  task: {
    name: 'Research brief',
    schedule: { cron: '0 9 * * 1', timezone: 'UTC' },
    prompt: {
      modelId: 'gpt-4o-mini',
      steps: [
        { name: 'outline', messages: [{ role: 'user', content: 'Outline a brief on {{input}}.' }] },
        {
          name: 'draft',
          messages: [{ role: 'user', content: 'Write the brief from: {{steps.outline.output}}' }],
        },
        {
          name: 'summary',
          messages: [{ role: 'user', content: 'Summarise in 2 lines: {{steps.draft.output}}' }],
        },
      ],
    },
    target: { mode: 'new_chat' },
  } satisfies CreateTaskDto,
};
