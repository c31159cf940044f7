import { ExecutionContext, Inject, Injectable } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { appSettingsConfig } from '../../config/app-settings.config';
import { Reflector } from '@nestjs/core';
import { AuthGuard } from '@nestjs/passport';
import { AppError, CommonErrorCode } from '../errors/app-error';
import type { Request } from 'express';
import { API_KEY_PREFIX, API_SCOPE_KEY, type ApiScope } from './api-scopes';
import { IS_PUBLIC_KEY } from './auth.decorators';
import { allowedOrigins, crossSiteRefused, isCrossSiteCookieWrite } from './cookie-origin';
import { SESSION_COOKIE, type SessionUser } from './session-user';

/**
 * Deny by default: every route needs a valid session (Bearer token or cookie) unless marked
 * `@Public()`. Public routes still read a session when one is sent (e.g. GET /api/auth/session).
 * Failure → 401 `{error, code: "UNAUTHORIZED"}` (spec Authentication 5).
 *
 * A personal API key (`Bearer sk-…`, strategy `api-key`) authenticates too, but only
 * where the route names a scope the key has (`@Endpoint({scope})`); elsewhere 403
 * INSUFFICIENT_SCOPE, and on public routes it is ignored (they answer as to no session). A
 * revoked, expired or unknown key is 401 INVALID_API_KEY. Under `/v1` the key may also come as
 * `x-api-key: sk-…` (Anthropic's header, which Claude Code and the Anthropic SDK send); an
 * `Authorization` header, when present too, wins. A state-changing request authenticated by the
 * session cookie must come from an allowed origin (`isCrossSiteCookieWrite`), else 403 FORBIDDEN
 * on a protected route; on a public route such a cookie is ignored (no session).
 */
/**
 * Anthropic's `x-api-key` header on a `/v1` route, read as `Authorization: Bearer <key>` (the
 * api-key strategy reads only that header) when no `Authorization` header is sent.
 */
export function apiKeyHeaderAsBearer(req: Request): void {
  const key = req.headers['x-api-key'];
  if (typeof key !== 'string' || !key || req.headers.authorization) return;
  if (req.path === '/v1' || req.path.startsWith('/v1/'))
    req.headers.authorization = `Bearer ${key}`;
}

@Injectable()
export class JwtAuthGuard extends AuthGuard(['jwt', 'api-key']) {
  /** APP_BASE_URL's origin and CORS_ORIGINS: where cookie-authenticated writes may come from. */
  private readonly origins: Set<string>;

  constructor(
    private readonly reflector: Reflector,
    @Inject(appSettingsConfig.KEY) appSettings: ConfigType<typeof appSettingsConfig>,
  ) {
    super();
    const { baseUrl, corsOrigins } = appSettings;
    this.origins = allowedOrigins(baseUrl, corsOrigins);
  }

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const req = context.switchToHttp().getRequest<Request & { user?: SessionUser }>();
    apiKeyHeaderAsBearer(req);
    const crossSite = isCrossSiteCookieWrite(req, this.origins);
    if (!this.isPublic(context)) {
      if (crossSite) throw crossSiteRefused();
      await super.canActivate(context);
      this.checkScope(context, req.user);
      return true;
    }
    // Public and no credentials at all: nothing to read (keeps /health/live cheap). A cross-site
    // write's cookie is no session: the route answers as to an anonymous caller.
    if (crossSite || (!req.headers.authorization && !req.cookies?.[SESSION_COOKIE])) return true;
    try {
      await super.canActivate(context);
    } catch {
      // An invalid token on a public route simply means "no session".
    }
    if (req.user?.apiKey && !this.scopeOf(context)) req.user = undefined;
    return true;
  }

  handleRequest<T>(err: unknown, user: T, _info: unknown, context: ExecutionContext): T {
    // `err` comes only from reading the user (e.g. the database is down) or a key over its
    // rate: that is not "no session", so it goes to the error filter instead of becoming a 401.
    if (err) throw err;
    if (user) return user;
    if (this.isPublic(context)) return undefined as T;
    const auth = context.switchToHttp().getRequest<Request>().headers.authorization;
    if (auth?.startsWith(`Bearer ${API_KEY_PREFIX}`))
      throw new AppError(
        CommonErrorCode.INVALID_API_KEY,
        'Invalid API key: revoked, expired or unknown',
      );
    throw new AppError(CommonErrorCode.UNAUTHORIZED, 'Authentication required');
  }

  private checkScope(context: ExecutionContext, user: SessionUser | undefined): void {
    if (!user?.apiKey) return;
    const scope = this.scopeOf(context);
    if (!scope || !user.apiKey.scopes.includes(scope)) {
      throw new AppError(
        CommonErrorCode.INSUFFICIENT_SCOPE,
        scope
          ? `This API key lacks the "${scope}" scope`
          : 'This route is not reachable with an API key; sign in instead',
        scope ? { requiredScope: scope } : undefined,
      );
    }
  }

  private scopeOf(context: ExecutionContext): ApiScope | undefined {
    return this.reflector.getAllAndOverride<ApiScope | undefined>(API_SCOPE_KEY, [
      context.getHandler(),
      context.getClass(),
    ]);
  }

  private isPublic(context: ExecutionContext): boolean {
    return !!this.reflector.getAllAndOverride<boolean>(IS_PUBLIC_KEY, [
      context.getHandler(),
      context.getClass(),
    ]);
  }
}
