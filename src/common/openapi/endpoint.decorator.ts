import { applyDecorators, type Type } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiCookieAuth, ApiExtension, ApiOperation } from '@nestjs/swagger';
import type { Role } from '../../users/user.entity';
import { RequiresScope, type ApiScope } from '../auth/api-scopes';
import { Public, Roles } from '../auth/auth.decorators';
import { ApiErrors, type ErrorSpec } from './api-errors';

/** Who may call a route: anyone, any signed-in user, or users with one of the roles. */
export type Access = 'public' | 'session' | { roles: Role[] };

export interface EndpointOptions<B> {
  /** One line for the operation list of the document. */
  summary: string;
  description?: string;
  access: Access;
  /**
   * The scope a personal API key needs here. Without one, a key is refused (403
   * INSUFFICIENT_SCOPE): account, keys, two-factor, payments, teams administration and admin
   * routes never name one. Shown as `x-api-key-scope`.
   */
  scope?: ApiScope;
  /**
   * Error statuses the route answers beyond the implied ones: 400 and 413 (the app-wide body
   * parsers refuse malformed or oversized bodies on any route), 401 (session), 403 (roles),
   * 500 (always) and 503 (database unreachable, see `database`).
   */
  errors?: ErrorSpec[];
  /** False for routes that never read PostgreSQL, so they cannot answer 503. Default true. */
  database?: boolean;
  /** The JSON request body and a realistic example of it (type-checked against the DTO). */
  body?: { type: Type<B>; example: B };
}

/**
 * The one decorator every documented route carries (immich's `@Authenticated` + `@Endpoint`):
 * the guard's metadata (`@Public()`, `@Roles()`) and the OpenAPI operation (summary, security,
 * the errors that access implies, the request body with its example) come from the same line,
 * so a route cannot be public for the guard yet secured in the document, or the reverse.
 * Public routes get `security: []`; the others Bearer or the session cookie.
 */
export function Endpoint<B>(opts: EndpointOptions<B>) {
  const { access } = opts;
  const implied: ErrorSpec[] = [400, 413];
  if (access !== 'public') implied.push(401, 403); // 403: a role, or an API key's scope
  if (opts.scope) implied.push(429); // the key's requests per minute (API_KEY_RPM)
  implied.push(500);
  // Session routes read the user on every request, so a database outage reaches them all.
  if (access !== 'public' || opts.database !== false) implied.push(503);
  const errors = [...(opts.errors ?? []), ...implied].sort((a, b) => statusOf(a) - statusOf(b));
  return applyDecorators(
    ApiOperation({
      summary: opts.summary,
      description: opts.scope
        ? [opts.description, `Reachable with an API key that has the \`${opts.scope}\` scope.`]
            .filter(Boolean)
            .join('\n\n')
        : opts.description,
      ...(access === 'public' ? { security: [] } : {}),
    }),
    ...(opts.scope ? [RequiresScope(opts.scope), ApiExtension('x-api-key-scope', opts.scope)] : []),
    ...(access === 'public'
      ? [Public()]
      : [
          ApiBearerAuth(),
          ApiCookieAuth(),
          ...(typeof access === 'object' ? [Roles(...access.roles)] : []),
        ]),
    ...(opts.body
      ? [
          ApiBody({
            type: opts.body.type,
            examples: { example: { value: opts.body.example } },
          }),
        ]
      : []),
    ApiErrors(...errors),
  );
}

function statusOf(e: ErrorSpec): number {
  return typeof e === 'number' ? e : e.status;
}
