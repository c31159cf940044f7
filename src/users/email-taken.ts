import { QueryFailedError } from 'typeorm';
import { AppError } from '../common/errors/app-error';
import { UsersErrorCode } from './users.errors';

/**
 * The error to throw for `err` from writing a user's email: the unique index refused the address
 * (PostgreSQL 23505) → AppError EMAIL_TAKEN (409); anything else unchanged.
 */
export function asEmailTaken(err: unknown): unknown {
  const unique =
    err instanceof QueryFailedError &&
    (err as QueryFailedError & { code?: string }).code === '23505';
  return unique
    ? new AppError(UsersErrorCode.EMAIL_TAKEN, 'A user with this email already exists')
    : err;
}
