import { createParamDecorator, ExecutionContext, SetMetadata } from '@nestjs/common';
import type { Role } from '../../users/user.entity';
import type { SessionUser } from './session-user';

export const IS_PUBLIC_KEY = 'isPublic';
export const ROLES_KEY = 'roles';

/** Marks a route as reachable without a session (every other route requires one). */
export const Public = () => SetMetadata(IS_PUBLIC_KEY, true);

/** Allowed roles for a route (spec Authentication 6); a user without a listed role gets 403. */
export const Roles = (...roles: Role[]) => SetMetadata(ROLES_KEY, roles);

/** The session user of the request (undefined only on public routes without a session). */
export const CurrentUser = createParamDecorator(
  (_data: unknown, ctx: ExecutionContext): SessionUser | undefined =>
    ctx.switchToHttp().getRequest<{ user?: SessionUser }>().user,
);
