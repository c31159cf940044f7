import { ExecutionContext, Injectable } from '@nestjs/common';
import { AuthGuard, PassportStrategy } from '@nestjs/passport';
import { Strategy } from 'passport-local';
import { AppError } from '../common/errors/app-error';
import { AuthErrorCode } from './auth.errors';
import type { User } from '../users/user.entity';
import { AuthService } from './auth.service';

/** Passport's credentials method on `email` + `password` (spec Authentication 2). */
@Injectable()
export class LocalStrategy extends PassportStrategy(Strategy, 'local') {
  constructor(private readonly auth: AuthService) {
    super({ usernameField: 'email', passwordField: 'password' });
  }

  validate(email: string, password: string): Promise<User | null> {
    return this.auth.validateCredentials(email, password);
  }
}

/** One 401 body for every failure: unknown email, no password, wrong password, missing values. */
@Injectable()
export class LocalAuthGuard extends AuthGuard('local') {
  handleRequest<T>(err: unknown, user: T, _info: unknown, _ctx: ExecutionContext): T {
    // `err` is a failure to check (e.g. the database is down), not wrong credentials.
    if (err) throw err;
    if (!user) throw new AppError(AuthErrorCode.INVALID_CREDENTIALS, 'Invalid email or password');
    return user;
  }
}
