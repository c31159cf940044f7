import type { BuiltinTool, ToolOutput } from '../builtin-tool';
import { onlyArgs, stringArg } from './arguments';
import type { CalculatorWorkers } from './calculator-workers';

/** Longest expression accepted, in characters. */
export const MAX_EXPRESSION_LENGTH = 1000;

/**
 * The `calculator` built-in: {expression} → its exact value, computed in `workers` (bounded in
 * time and memory there; the allowlist of what an expression may use is in calculator.worker.ts).
 */
export const calculatorTool = (workers: CalculatorWorkers): BuiltinTool => ({
  name: 'calculator',
  reads: 'arguments',
  description:
    'Evaluates a math expression exactly (decimal arithmetic to 64 significant digits), e.g. "0.1 + 0.2", "2^100", "sqrt(2)", "5 cm to inch". Use it instead of computing by hand. Numbers, units, constants, arithmetic, roots, powers, logarithms, trigonometry, rounding, and vectors of up to 64 entries (arithmetic, sum, mean, dot, norm); no matrices, indexing or function definitions.',
  parameters: {
    type: 'object',
    properties: {
      expression: {
        type: 'string',
        maxLength: MAX_EXPRESSION_LENGTH,
        description: 'The expression in mathjs syntax',
      },
    },
    required: ['expression'],
    additionalProperties: false,
  },
  // Bounded in its worker: the plugins service need not time it.
  ownLimits: true,
  async run(args, { signal }): Promise<ToolOutput> {
    onlyArgs(args, ['expression']);
    const expression = stringArg(args, 'expression', { maxLength: MAX_EXPRESSION_LENGTH });
    const value = await workers.evaluate(expression, signal);
    return { content: value, summary: `${expression.trim()} = ${value}` };
  },
});
