import { createHash, randomUUID } from 'node:crypto';
import { AppError, CommonErrorCode } from '../common/errors/app-error';

/**
 * The Idempotency-Key sent with a processor create call. With a client-supplied key (the
 * request's `Idempotency-Key` header, 1–255 visible ASCII characters) it is a hash of the
 * caller, the operation and that key, so a client retrying after a timeout gets the first
 * result back instead of a second charge, and two users' keys never collide. Without one it is
 * random (each request is a new operation).
 * Throws VALIDATION_FAILED (400) for a malformed header.
 */
export function idempotencyKey(userId: string, operation: string, clientKey?: string): string {
  if (clientKey === undefined || clientKey === '') return `${operation}:${randomUUID()}`;
  if (!/^[\x21-\x7e]{1,255}$/.test(clientKey))
    throw new AppError(
      CommonErrorCode.VALIDATION_FAILED,
      'Idempotency-Key must be 1-255 visible ASCII characters',
    );
  const digest = createHash('sha256').update(`${userId}\n${operation}\n${clientKey}`).digest('hex');
  return `${operation}:${digest}`;
}

/**
 * The `Idempotency-Key` request header for `@ApiHeader`, named in lower case as `@Headers` reads
 * it, so the OpenAPI document lists it once per operation.
 */
export const IDEMPOTENCY_HEADER = {
  name: 'idempotency-key',
  required: false,
  description:
    'Idempotency-Key: retrying with the same key returns the first result instead of a second payment',
};
