// The calculator's evaluation, run in a worker process (ToolWorkerPool). This file imports
// packages only, no module of ours: the tests start it from its TypeScript source, which Node
// runs by stripping types, and relative imports would need extensions the build does not have.
import { all, create } from 'mathjs';
import type { MathNode } from 'mathjs';

/** Most entries of a vector, literal or result; matrices (nested brackets) are refused. */
export const MAX_VECTOR_LENGTH = 64;

/** The argument a calculator worker is started with (without it, this module is inert). */
export const CALCULATOR_WORKER_ARG = '--tool-worker=calculator';

/** A refusal or failure the model is told, with its reason. */
export class CalculationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CalculationError';
  }
}

// Functions an expression may call: scalar ones, and the reductions of vectors to a scalar (sum,
// mean, dot, ...; arithmetic operators apply to vectors too). Nothing reaching the parser, the namespace or the unit
// registry, and nothing building or reshaping matrices (resize, zeros, range, concat, ...).
const FUNCTIONS = new Set(
  [
    'abs sign sqrt cbrt nthRoot exp expm1 log log10 log2 log1p pow mod hypot',
    'round floor ceil fix min max sum prod mean median std variance norm dot cross',
    'sin cos tan sec csc cot asin acos atan atan2 asec acsc acot',
    'sinh cosh tanh sech csch coth asinh acosh atanh asech acsch acoth',
    're im conj arg',
  ]
    .join(' ')
    .split(' '),
);

// Operators by their function name: arithmetic, comparison, logic, unit conversion (`to`,
// `in`), and the percent sign (`50%` is a division). Not `!` (factorial), bitwise operators,
// transposition or ranges.
const OPERATORS = new Set(
  [
    'add subtract multiply divide pow mod unaryMinus unaryPlus dotMultiply dotDivide dotPow to',
    'equal unequal smaller larger smallerEq largerEq and or xor not',
  ]
    .join(' ')
    .split(' '),
);

/** Constants a symbol may name (besides units and the expression's own variables). */
const CONSTANTS = new Set(
  'pi PI e E tau phi i LN2 LN10 LOG2E LOG10E SQRT1_2 SQRT2 true false'.split(' '),
);

// Loaded here, in the worker, never in the service's process: mathjs costs ~60 MB of heap.
const math = create(all, { number: 'BigNumber', precision: 64 });

/**
 * Throws CalculationError unless every part of `root` is allowed: number and boolean literals,
 * allowed constants, units (`cm`), variables assigned in the expression, calls of FUNCTIONS by
 * name, OPERATORS, parentheses, `a ? b : c`, chained comparisons, statements (`x = 3; x * 2`)
 * and one-level vectors of at most MAX_VECTOR_LENGTH entries.
 */
export function checkAllowed(root: MathNode): void {
  const assigned = new Set<string>();
  root.traverse((node) => {
    const n = node as MathNode & { object?: MathNode; name?: string };
    if (n.type === 'AssignmentNode' && n.object?.type === 'SymbolNode') assigned.add(n.name!);
  });
  root.traverse((node, path, parent) => {
    const n = node as MathNode & Record<string, unknown>;
    switch (node.type) {
      case 'ParenthesisNode':
      case 'BlockNode':
      case 'ConditionalNode':
      case 'RelationalNode':
        return;
      case 'ConstantNode':
        if (typeof n.value === 'string' || n.value === null || n.value === undefined)
          throw new CalculationError('Only numbers and true/false are accepted as values');
        return;
      case 'OperatorNode':
        if (!OPERATORS.has(n.fn as string))
          throw new CalculationError(`The operator ${n.op} is not available in the calculator`);
        return;
      case 'FunctionNode': {
        const fn = n.fn as MathNode & { name?: string };
        if (fn.type !== 'SymbolNode' || !FUNCTIONS.has(fn.name as string))
          throw new CalculationError(
            `Function ${fn.type === 'SymbolNode' ? fn.name : fn.toString()} is not available in the calculator`,
          );
        return;
      }
      case 'SymbolNode': {
        const name = n.name as string;
        if (parent?.type === 'FunctionNode' && path === 'fn') return; // checked as a function
        if (parent?.type === 'AssignmentNode' && path === 'object') return;
        if (CONSTANTS.has(name) || assigned.has(name) || math.Unit.isValuelessUnit(name)) return;
        if (
          FUNCTIONS.has(name) ||
          typeof (math as unknown as Record<string, unknown>)[name] === 'function'
        )
          throw new CalculationError(`Function ${name} is not available as a value`);
        throw new CalculationError(`Undefined symbol ${name}`);
      }
      case 'AssignmentNode':
        if ((n.object as MathNode).type !== 'SymbolNode' || n.index)
          throw new CalculationError('Only plain variables can be assigned (no indexes)');
        return;
      case 'ArrayNode': {
        const items = n.items as MathNode[];
        if (items.some((item) => item.type === 'ArrayNode'))
          throw new CalculationError('Matrices are not available; vectors only');
        if (items.length > MAX_VECTOR_LENGTH)
          throw new CalculationError(`Vectors have at most ${MAX_VECTOR_LENGTH} entries`);
        return;
      }
      case 'FunctionAssignmentNode':
        throw new CalculationError('Defining functions is not available in the calculator');
      case 'IndexNode':
      case 'AccessorNode':
        throw new CalculationError('Indexing (a[1], a.b) is not available in the calculator');
      case 'RangeNode':
        throw new CalculationError('Ranges (1:10) are not available in the calculator');
      default:
        throw new CalculationError(`${node.type} is not available in the calculator`);
    }
  });
}

/**
 * The value of `expression` as text: exact decimal arithmetic (BigNumber, 64 significant digits:
 * 0.1 + 0.2 → "0.3", 2^100 in full), units, complex numbers and vectors as mathjs formats them.
 * Throws CalculationError on a syntax error, anything checkAllowed refuses, a result that is not
 * a finite value, or a matrix result larger than a vector of MAX_VECTOR_LENGTH entries.
 */
export function calculate(expression: string): string {
  let root: MathNode;
  let result: unknown;
  try {
    root = math.parse(expression);
  } catch (e) {
    throw new CalculationError(`Cannot evaluate: ${(e as Error).message}`);
  }
  checkAllowed(root);
  try {
    // A fresh scope per call: assignments (`x = 3`) never outlive the expression.
    result = root.compile().evaluate(new Map());
  } catch (e) {
    throw new CalculationError(`Cannot evaluate: ${(e as Error).message}`);
  }
  if (math.typeOf(result) === 'ResultSet') {
    const entries = (result as { entries: unknown[] }).entries;
    result = entries[entries.length - 1];
  }
  if (result === undefined || typeof result === 'function')
    throw new CalculationError('The expression has no value (give an expression to compute)');
  if (math.isMatrix(result)) {
    const size = result.size();
    if (size.length !== 1 || size[0] > MAX_VECTOR_LENGTH)
      throw new CalculationError(
        `Results are numbers or vectors of at most ${MAX_VECTOR_LENGTH} entries`,
      );
  }
  const text = format(result);
  if (/\b(Infinity|NaN)\b/.test(text))
    throw new CalculationError('The result is not a finite number (division by zero?)');
  return text;
}

function format(value: unknown): string {
  // Fixed notation shows every digit of numbers within the precision (2^100, 10^-20).
  if (math.isBigNumber(value)) {
    const exponent = value.isZero() || !value.isFinite() ? 0 : value.e;
    if (Math.abs(exponent) <= 64) return math.format(value, { notation: 'fixed' });
  }
  return math.format(value, { precision: 64 });
}

/** A job for the worker: `input` is the expression. */
export interface CalculatorRequest {
  id: number;
  input: string;
}

/** The worker's answer to request `id`: the value, or the message of a CalculationError. */
export type CalculatorAnswer =
  { id: number; ok: true; value: string } | { id: number; ok: false; message: string };

if (process.argv.includes(CALCULATOR_WORKER_ARG) && process.send) {
  const send = process.send.bind(process);
  process.on('message', ({ id, input }: CalculatorRequest) => {
    let answer: CalculatorAnswer;
    try {
      answer = { id, ok: true, value: calculate(input) };
    } catch (e) {
      const known = e instanceof CalculationError;
      answer = { id, ok: false, message: known ? e.message : 'The calculation failed' };
    }
    send(answer);
  });
  // The service is gone: so is its worker.
  process.on('disconnect', () => process.exit(0));
  // mathjs compiles its functions on their first call: the common ones are compiled before the
  // pool sends work, so a first calculation is not slowed by it.
  calculate(
    'x = 0.1 + 0.2 * 3 / 4 - 5; sqrt(2) ^ 2 + sin(pi / 4) + log(10) + round(1.5) + mod(7, 3)',
  );
  calculate('5 cm to inch');
  send({ ready: true });
}
