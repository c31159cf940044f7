import { checkTemplates, render, renderedLength, RenderTooLargeError } from './templating';

const step = (name: string, content: string) => ({ name, messages: [{ content }] });

describe('workflow templating', () => {
  it('accepts the input and earlier outputs', () => {
    expect(
      checkTemplates([
        step('draft', 'Write about {{input}}'),
        step('edit', 'Edit: {{ steps.draft.output }} for {{input}}'),
      ]),
    ).toEqual([]);
  });

  it('refuses a later step, itself, an unknown step and other placeholders', () => {
    const problems = checkTemplates([
      step('a', 'use {{steps.b.output}}'),
      step('b', 'use {{steps.b.output}} and {{steps.zzz.output}} and {{user.name}}'),
    ]);
    expect(problems.map((p) => p.field)).toEqual([
      'prompt.steps.0.messages.0.content',
      'prompt.steps.1.messages.0.content',
      'prompt.steps.1.messages.0.content',
      'prompt.steps.1.messages.0.content',
    ]);
    expect(problems[0].message).toMatch(/cannot use the output of "b"/);
    expect(problems[2].message).toMatch(/no step is named "zzz"/);
    expect(problems[3].message).toMatch(/not a placeholder/);
  });

  it('renders the input and outputs, leaving other braces alone', () => {
    expect(render('{{input}} → {{steps.a.output}} {"json": {}}', 'x', { a: 'A{{input}}' })).toBe(
      'x → A{{input}} {"json": {}}',
    );
  });

  it('computes the rendered length without rendering', () => {
    const text = 'A {{input}} B {{ steps.a.output }} {{steps.zz.output}}';
    const outputs = { a: 'out' };
    expect(renderedLength(text, 'xyz', outputs)).toBe(render(text, 'xyz', outputs).length);
  });

  it('refuses a render past its limit before building it', () => {
    // 10 000 placeholders × 20 000 characters would be 200 M characters.
    const text = '{{input}}'.repeat(10_000);
    const input = 'x'.repeat(20_000);
    const before = process.memoryUsage().heapUsed;
    expect(() => render(text, input, {}, 400_000)).toThrow(RenderTooLargeError);
    expect(() => render(text, input, {}, 400_000)).toThrow(/200000000 characters/);
    expect(process.memoryUsage().heapUsed - before).toBeLessThan(16 * 1024 * 1024);
    expect(render('{{input}}!', 'ok', {}, 3)).toBe('ok!');
    expect(() => render('{{input}}!', 'ok', {}, 2)).toThrow(RenderTooLargeError);
  });
});
