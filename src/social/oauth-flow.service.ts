import { Inject, Injectable, Logger } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { sharedConfig } from '../config/shared.config';
import { appSettingsConfig } from '../config/app-settings.config';
import type { CookieOptions, Request, Response } from 'express';
import { AuthService } from '../auth/auth.service';
import { SESSION_COOKIE, sessionCookieOptions } from '../auth/session-cookie';
import { TwoFactorLoginService } from '../auth/two-factor/two-factor-login.service';
import { AppError, CommonErrorCode } from '../common/errors/app-error';
import { resolveLocale } from '../i18n/locale';
import { normaliseReferralCode } from '../referrals/referral-code';
import type { User } from '../users/user.entity';
import { DEFAULT_CALLBACK_URL, safeCallbackUrl } from './callback-url';
import { issueState, STATE_TTL_SECONDS, stateCookieName, verifyState } from './oauth-state';
import { runStrategy } from './run-strategy';
import type { SocialProfile, SocialProvider } from './social.interface';
import { SocialLoginError, SocialLoginErrorCode } from './social-login.error';
import { SocialAuthService } from './social-auth.service';

/** Where every refused or failed social login lands, with `?error=<code>`. */
export const SIGNIN_PAGE = '/auth/signin';
/** Where a social login with two-factor on continues (after `/{locale}`), with `?token=`. */
export const TWO_FACTOR_PAGE = '/auth/2fa';

// A provider's `error` is passed on only when it looks like an OAuth error code.
const PROVIDER_ERROR = /^[A-Za-z0-9_.-]{1,64}$/;

type Completion = { user: User; callbackUrl?: string } | { error: string };

/**
 * The OAuth 2.0 authorization-code dance shared by the provider modules: a state bound to the
 * browser by a signed cookie (CSRF), the code exchange and profile request through the
 * provider's passport strategy, `validateSocialLogin`, then the session cookie of email login.
 */
@Injectable()
export class OAuthFlowService {
  private readonly logger = new Logger('SocialLogin');

  constructor(
    private readonly social: SocialAuthService,
    private readonly auth: AuthService,
    @Inject(sharedConfig.KEY) private readonly shared: ConfigType<typeof sharedConfig>,
    @Inject(appSettingsConfig.KEY)
    private readonly appSettings: ConfigType<typeof appSettingsConfig>,
    private readonly twoFactorLogin: TwoFactorLoginService,
  ) {}

  /**
   * GET /api/auth/signin/{provider}: 302 to the provider's authorization page with a fresh
   * `state`, also set as the httpOnly state cookie (10 minutes) with the optional `callbackUrl`
   * when it is acceptable (see `safeCallbackUrl`). Throws AppError NOT_FOUND (404) when the
   * provider is not configured.
   */
  async signin(provider: SocialProvider, req: Request, res: Response): Promise<void> {
    const strategy = this.requireStrategy(provider);
    const { baseUrl, corsOrigins } = this.appSettings;
    const callbackUrl = safeCallbackUrl(req.query.callbackUrl, baseUrl, corsOrigins);
    // A sign-up link's `?ref=` rides in the signed state cookie to the callback.
    const ref = normaliseReferralCode(req.query.ref) ?? undefined;
    const { state, cookie } = issueState(this.secret, provider.id, callbackUrl, Date.now(), ref);
    // Only the authorization redirect happens here: a `code` or `error` in this URL would make
    // passport finish a login instead, so the strategy sees an empty query.
    const bare = Object.create(req, { query: { value: {} }, body: { value: {} } }) as Request;
    const outcome = await runStrategy(strategy, bare, { state });
    if (outcome.kind !== 'redirect')
      throw outcome.kind === 'error' ? outcome.error : new Error('OAuth sign-in did not redirect');
    res.cookie(stateCookieName(provider.id), cookie, this.stateCookie(provider, STATE_TTL_SECONDS));
    this.redirect(res, outcome.url);
  }

  /**
   * GET /api/auth/callback/{provider} (spec Authentication 3): on success sets the session
   * cookie exactly as email login does and redirects to the stored callbackUrl or /dashboard.
   * Otherwise redirects to `/auth/signin?error=` the provider's error (e.g. `access_denied`),
   * `OAuthCallback` (wrong or missing state, failed code exchange), `OAuthAccountNotLinked` or
   * `OAuthCreateAccount`. The state cookie is cleared either way, so a state serves once.
   * With two-factor on, no session: a redirect to `/{locale}/auth/2fa?token=<mfaToken>` (plus
   * the accepted `callbackUrl`), whose page calls POST /api/auth/2fa/verify.
   * Throws AppError NOT_FOUND (404) when the provider is not configured.
   */
  async callback(provider: SocialProvider, req: Request, res: Response): Promise<void> {
    this.requireStrategy(provider);
    res.clearCookie(stateCookieName(provider.id), this.stateCookie(provider));
    const done = await this.complete(provider, req);
    if ('error' in done) {
      this.redirect(res, `${SIGNIN_PAGE}?error=${encodeURIComponent(done.error)}`);
      return;
    }
    const mfaToken = await this.twoFactorLogin.challengeFor(done.user);
    if (mfaToken) {
      const query = new URLSearchParams({ token: mfaToken });
      if (done.callbackUrl) query.set('callbackUrl', done.callbackUrl);
      this.redirect(res, `/${resolveLocale(req)}${TWO_FACTOR_PAGE}?${query.toString()}`);
      return;
    }
    const { accessToken } = await this.auth.issueToken(done.user);
    const maxAge = this.shared.sessionMaxAge;
    res.cookie(SESSION_COOKIE, accessToken, sessionCookieOptions(this.baseUrl, maxAge));
    this.redirect(res, done.callbackUrl ?? DEFAULT_CALLBACK_URL);
  }

  private async complete(provider: SocialProvider, req: Request): Promise<Completion> {
    const { error, code, state } = req.query;
    if (error !== undefined) {
      const value = typeof error === 'string' && PROVIDER_ERROR.test(error) ? error : undefined;
      return { error: value ?? SocialLoginErrorCode.OAuthCallback };
    }
    const cookie: unknown = req.cookies?.[stateCookieName(provider.id)];
    const bound = verifyState(this.secret, provider.id, cookie, state);
    // Without a code, passport would start a new authorization instead of finishing this one.
    if (!bound || typeof code !== 'string' || !code)
      return { error: SocialLoginErrorCode.OAuthCallback };

    const outcome = await runStrategy(this.requireStrategy(provider), req);
    if (outcome.kind !== 'success') {
      const reason = outcome.kind === 'error' ? outcome.error : outcome;
      this.logger.warn(`${provider.id} callback failed: ${describe(reason)}`);
      return { error: SocialLoginErrorCode.OAuthCallback };
    }
    try {
      const user = await this.social.validateSocialLogin(
        provider.id,
        outcome.user as SocialProfile,
        bound.ref,
      );
      const { corsOrigins } = this.appSettings;
      // Checked again: the configuration may have changed since the sign-in started.
      return { user, callbackUrl: safeCallbackUrl(bound.callbackUrl, this.baseUrl, corsOrigins) };
    } catch (err) {
      if (err instanceof SocialLoginError) return { error: err.code };
      throw err;
    }
  }

  private requireStrategy(provider: SocialProvider): NonNullable<SocialProvider['strategy']> {
    if (!provider.strategy)
      throw new AppError(CommonErrorCode.NOT_FOUND, 'Unknown sign-in provider');
    return provider.strategy;
  }

  /** httpOnly, SameSite=Lax (sent on the provider's top-level redirect back), callback path only. */
  private stateCookie(provider: SocialProvider, maxAgeSeconds?: number): CookieOptions {
    return {
      ...sessionCookieOptions(this.baseUrl, maxAgeSeconds),
      path: `/api/auth/callback/${provider.id}`,
    };
  }

  private redirect(res: Response, url: string): void {
    res.setHeader('Cache-Control', 'no-store');
    res.redirect(302, url);
  }

  private get baseUrl(): string {
    return this.appSettings.baseUrl;
  }

  private get secret(): string {
    return this.shared.authSecret as string;
  }
}

/** A log line for a failed exchange: error name, message and OAuth code; never tokens. */
function describe(reason: unknown): string {
  if (reason instanceof Error) {
    const code = (reason as Error & { code?: unknown }).code;
    return `${reason.name}: ${reason.message}${typeof code === 'string' ? ` (${code})` : ''}`;
  }
  return 'the strategy refused the request';
}
