import { ValidationError, ValidationPipe } from '@nestjs/common';
import { AppError, ErrorCode } from '../errors/app-error';

function flatten(errors: ValidationError[], prefix = ''): string[] {
  return errors.flatMap((e) => {
    const path = prefix ? `${prefix}.${e.property}` : e.property;
    const own = Object.values(e.constraints ?? {}).map((m) => (prefix ? `${path}: ${m}` : m));
    return [...own, ...flatten(e.children ?? [], path)];
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
    exceptionFactory: (errors) =>
      new AppError(ErrorCode.VALIDATION_FAILED, flatten(errors).join('; ')),
  });
}
