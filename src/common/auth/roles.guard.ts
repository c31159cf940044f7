import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AppError, CommonErrorCode } from '../errors/app-error';
import { ROLES_KEY } from './auth.decorators';
import type { SessionUser } from './session-user';

/** Enforces `@Roles(...)`: the session user's role must be in the list, else 403 FORBIDDEN. */
@Injectable()
export class RolesGuard implements CanActivate {
  constructor(private readonly reflector: Reflector) {}

  canActivate(context: ExecutionContext): boolean {
    const roles = this.reflector.getAllAndOverride<string[] | undefined>(ROLES_KEY, [
      context.getHandler(),
      context.getClass(),
    ]);
    if (!roles) return true;
    const user = context.switchToHttp().getRequest<{ user?: SessionUser }>().user;
    if (user?.role && roles.includes(user.role)) return true;
    throw new AppError(
      CommonErrorCode.FORBIDDEN,
      'This action requires one of the roles: ' + roles.join(', '),
    );
  }
}
