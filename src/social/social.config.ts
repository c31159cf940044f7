import { Transform } from 'class-transformer';
import { IsOptional, IsUrl } from 'class-validator';
import { defineConfigSlice } from '../config/config-slice';
import { emptyToUndefined, HTTP_URL, SetTogether } from '../config/feature-environment';

/**
 * Social login: a provider is offered only with both its client id and secret; one alone is a
 * mistake. The endpoint URLs default to the real providers' (tests point them at a local server).
 */
export class SocialEnvironment {
  @SetTogether('GOOGLE_CLIENT_ID', 'GOOGLE_CLIENT_SECRET') GOOGLE_CLIENT_ID?: string;
  @SetTogether('GOOGLE_CLIENT_ID', 'GOOGLE_CLIENT_SECRET') GOOGLE_CLIENT_SECRET?: string;
  @SetTogether('GITHUB_CLIENT_ID', 'GITHUB_CLIENT_SECRET') GITHUB_CLIENT_ID?: string;
  @SetTogether('GITHUB_CLIENT_ID', 'GITHUB_CLIENT_SECRET') GITHUB_CLIENT_SECRET?: string;
  @IsOptional() @Transform(emptyToUndefined) @IsUrl(HTTP_URL) GOOGLE_AUTHORIZATION_URL?: string;
  @IsOptional() @Transform(emptyToUndefined) @IsUrl(HTTP_URL) GOOGLE_TOKEN_URL?: string;
  @IsOptional() @Transform(emptyToUndefined) @IsUrl(HTTP_URL) GOOGLE_USERINFO_URL?: string;
  @IsOptional() @Transform(emptyToUndefined) @IsUrl(HTTP_URL) GITHUB_AUTHORIZATION_URL?: string;
  @IsOptional() @Transform(emptyToUndefined) @IsUrl(HTTP_URL) GITHUB_TOKEN_URL?: string;
  @IsOptional() @Transform(emptyToUndefined) @IsUrl(HTTP_URL) GITHUB_USER_URL?: string;
  @IsOptional() @Transform(emptyToUndefined) @IsUrl(HTTP_URL) GITHUB_EMAILS_URL?: string;
}

/** One OAuth 2.0 provider: client credentials and endpoints (defaults: the real ones). */
export interface OAuthClientConfig {
  clientId?: string;
  clientSecret?: string;
  authorizationUrl: string;
  tokenUrl: string;
  /** Google: the OpenID userinfo endpoint; GitHub: `GET /user`. */
  profileUrl: string;
  /** GitHub only: `GET /user/emails`. */
  emailsUrl?: string;
}

/** The `oauth` slice; a provider without id and secret is not offered. */
export interface OAuthConfig {
  google: OAuthClientConfig;
  github: OAuthClientConfig;
}

/** The `oauth` slice from validated variables. */
export function buildOAuthConfig(env: SocialEnvironment): OAuthConfig {
  return {
    google: {
      clientId: env.GOOGLE_CLIENT_ID,
      clientSecret: env.GOOGLE_CLIENT_SECRET,
      authorizationUrl:
        env.GOOGLE_AUTHORIZATION_URL ?? 'https://accounts.google.com/o/oauth2/v2/auth',
      tokenUrl: env.GOOGLE_TOKEN_URL ?? 'https://oauth2.googleapis.com/token',
      profileUrl: env.GOOGLE_USERINFO_URL ?? 'https://openidconnect.googleapis.com/v1/userinfo',
    },
    github: {
      clientId: env.GITHUB_CLIENT_ID,
      clientSecret: env.GITHUB_CLIENT_SECRET,
      authorizationUrl: env.GITHUB_AUTHORIZATION_URL ?? 'https://github.com/login/oauth/authorize',
      tokenUrl: env.GITHUB_TOKEN_URL ?? 'https://github.com/login/oauth/access_token',
      profileUrl: env.GITHUB_USER_URL ?? 'https://api.github.com/user',
      emailsUrl: env.GITHUB_EMAILS_URL ?? 'https://api.github.com/user/emails',
    },
  };
}

/** The `oauth` slice, read by its module with `@Inject(oauthConfig.KEY)`. */
export const oauthConfig = defineConfigSlice({
  name: 'oauth',
  environment: SocialEnvironment,
  build: buildOAuthConfig,
});
