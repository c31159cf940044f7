import { type ArgumentMetadata, ValidationError, ValidationPipe } from '@nestjs/common';
import { AppError, CommonErrorCode } from '../errors/app-error';

/** One failed rule: the property path (`messages.0.role`) and class-validator's constraint name. */
export interface Violation {
  property: string;
  constraint: string;
  /** class-validator's English message. */
  message: string;
}

/** 400 VALIDATION_FAILED that keeps each violation, so the error filter can translate them. */
export class ValidationFailedError extends AppError {
  constructor(readonly violations: Violation[]) {
    super(CommonErrorCode.VALIDATION_FAILED, violations.map((v) => v.message).join('; '));
  }
}

function flatten(errors: ValidationError[], prefix = ''): Violation[] {
  return errors.flatMap((e) => {
    const property = prefix ? `${prefix}.${e.property}` : e.property;
    const own = Object.entries(e.constraints ?? {}).map(([constraint, m]) => ({
      property,
      constraint,
      message: prefix ? `${property}: ${m}` : m,
    }));
    return [...own, ...flatten(e.children ?? [], property)];
  });
}

/**
 * Deepest nesting of arrays and objects accepted in any validated input (our DTOs need 3).
 * Deeper JSON, e.g. 5 000 `[`, would overflow the stack in class-transformer and the pipe (a 500).
 */
export const MAX_INPUT_DEPTH = 32;

/**
 * What a string holds that no text column can take, or undefined: U+0000, which PostgreSQL
 * cannot store in text, or ill-formed UTF-16 (a lone surrogate, `"\ud800"` in JSON), which
 * jsonb refuses and text would store as U+FFFD; either would fail a statement (a 500 instead of
 * a 400) or change what was sent.
 */
export function textProblem(v: string): string | undefined {
  if (v.includes('\u0000')) return 'Text must not contain the NUL character (U+0000)';
  if (!v.isWellFormed())
    return 'Text must be well-formed Unicode (no lone UTF-16 surrogate such as \\ud800)';
  return undefined;
}

/**
 * What makes `value` unacceptable before any DTO rule: arrays or objects nested more than
 * `limit` deep, or a string (value or key) with a textProblem. Iterative: no recursion.
 */
function inputProblem(value: unknown, limit: number): string | undefined {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length) {
    const [v, depth] = stack.pop()!;
    if (typeof v === 'string') {
      const problem = textProblem(v);
      if (problem) return problem;
      continue;
    }
    if (v === null || typeof v !== 'object') continue;
    if (depth >= limit) return `Input is nested deeper than ${limit} levels`;
    for (const [key, child] of Object.entries(v)) stack.push([key, depth], [child, depth + 1]);
  }
  return undefined;
}

/**
 * ValidationPipe that first refuses a body or query too deep or holding text no column can take
 * (inputProblem). Route parameters are left to their own pipes and lookups (a file name with
 * %00 is simply not found, as before).
 */
class DepthLimitedValidationPipe extends ValidationPipe {
  async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    const checked = metadata.type === 'body' || metadata.type === 'query';
    const problem = checked ? inputProblem(value, MAX_INPUT_DEPTH) : undefined;
    if (problem) throw new AppError(CommonErrorCode.VALIDATION_FAILED, problem);
    return super.transform(value, metadata);
  }
}

/**
 * Global validation: unknown fields are refused (no mass assignment), values are transformed to
 * their DTO types, input nested deeper than MAX_INPUT_DEPTH or holding U+0000 or a lone
 * surrogate is refused, and failures answer 400 `{error, code: "VALIDATION_FAILED"}`.
 */
export function createValidationPipe(): ValidationPipe {
  return new DepthLimitedValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    transform: true,
    exceptionFactory: (errors) => new ValidationFailedError(flatten(errors)),
  });
}
