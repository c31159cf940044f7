import type { MathJsInstance } from 'mathjs';
import type { BuiltinTool, ToolOutput } from '../builtin-tool';
import { ToolFailure } from '../tool-result';
import { onlyArgs, stringArg } from './arguments';

/** Longest expression accepted, in characters. */
export const MAX_EXPRESSION_LENGTH = 1000;

// Functions that reach the parser, the namespace or the unit registry (mathjs docs, "Security"),
// and those whose cost grows with an argument (an expression like `factorial(1e9)` or
// `ones(1e5, 1e5)` would hold the event loop or the heap): refused.
const DISABLED = [
  'import',
  'createUnit',
  'reviver',
  'evaluate',
  'parse',
  'compile',
  'simplify',
  'simplifyConstant',
  'simplifyCore',
  'rationalize',
  'derivative',
  'resolve',
  'chain',
  'factorial',
  'gamma',
  'combinations',
  'combinationsWithRep',
  'permutations',
  'multinomial',
  'stirlingS2',
  'bellNumbers',
  'catalan',
  'composition',
  'range',
  'zeros',
  'ones',
  'identity',
  'random',
  'randomInt',
  'pickRandom',
];

/** A mathjs instance with exact decimals (BigNumber, 64 significant digits) and `evaluate`. */
function restrictedMath(): { math: MathJsInstance; evaluate: MathJsInstance['evaluate'] } {
  // Loaded on first use: mathjs with every function costs ~40 MB of heap, which a process that
  // never computes (and every test file that boots the app) should not pay.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { all, create } = require('mathjs') as typeof import('mathjs');
  const math = create(all, { number: 'BigNumber', precision: 64 });
  // Kept before the override: expressions cannot call it, this module can.
  const evaluate = math.evaluate;
  math.import(
    Object.fromEntries(
      DISABLED.map((name) => [
        name,
        () => {
          throw new ToolFailure(`Function ${name} is not available in the calculator`);
        },
      ]),
    ),
    { override: true },
  );
  return { math, evaluate };
}

let instance: ReturnType<typeof restrictedMath> | undefined;
const mathjs = () => (instance ??= restrictedMath());

/**
 * The value of `expression` as text: exact decimal arithmetic (0.1 + 0.2 → "0.3", 2^100 in
 * full), units and matrices as mathjs formats them. Throws ToolFailure on a syntax error, a
 * refused function, division by zero or any result that is not a finite value.
 */
export function calculate(expression: string): string {
  let result: unknown;
  try {
    // A fresh scope per call: assignments (`x = 3`) never outlive the expression.
    result = mathjs().evaluate(expression, new Map());
  } catch (e) {
    if (e instanceof ToolFailure) throw e;
    throw new ToolFailure(`Cannot evaluate: ${(e as Error).message}`);
  }
  const { math } = mathjs();
  if (math.typeOf(result) === 'ResultSet') {
    const entries = (result as { entries: unknown[] }).entries;
    result = entries[entries.length - 1];
  }
  if (result === undefined || typeof result === 'function')
    throw new ToolFailure('The expression has no value (give an expression to compute)');
  const text = format(result);
  if (/\b(Infinity|NaN)\b/.test(text))
    throw new ToolFailure('The result is not a finite number (division by zero?)');
  return text;
}

function format(value: unknown): string {
  const { math } = mathjs();
  // Fixed notation shows every digit of numbers within the precision (2^100, 10^-20).
  if (math.isBigNumber(value)) {
    const exponent = value.isZero() || !value.isFinite() ? 0 : value.e;
    if (Math.abs(exponent) <= 64) return math.format(value, { notation: 'fixed' });
  }
  return math.format(value, { precision: 64 });
}

/** The `calculator` built-in: {expression} → its exact value. */
export const calculatorTool: BuiltinTool = {
  name: 'calculator',
  reads: 'arguments',
  description:
    'Evaluates a math expression exactly (decimal arithmetic to 64 significant digits), e.g. "0.1 + 0.2", "2^100", "sqrt(2)", "5 cm to inch". Use it instead of computing by hand.',
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
  async run(args): Promise<ToolOutput> {
    onlyArgs(args, ['expression']);
    const expression = stringArg(args, 'expression', { maxLength: MAX_EXPRESSION_LENGTH });
    const value = calculate(expression);
    return { content: value, summary: `${expression.trim()} = ${value}` };
  },
};
