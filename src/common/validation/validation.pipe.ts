import { ValidationError, ValidationPipe } from '@nestjs/common';
import { AppError, ErrorCode } from '../errors/app-error';

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
    super(ErrorCode.VALIDATION_FAILED, violations.map((v) => v.message).join('; '));
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
 * Global validation: unknown fields are refused (no mass assignment), values are transformed to
 * their DTO types, and failures answer 400 `{error, code: "VALIDATION_FAILED"}`.
 */
export function createValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    transform: true,
    exceptionFactory: (errors) => new ValidationFailedError(flatten(errors)),
  });
}
