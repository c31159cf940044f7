import { Inject, Injectable } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { oauthConfig } from '../social/social.config';
import { appSettingsConfig } from '../config/app-settings.config';
import {
  Strategy as GoogleStrategy,
  type Profile,
  type StrategyOptions,
} from 'passport-google-oauth20';
import type { VerifyCallback } from 'passport-oauth2';
import type { SocialProfile, SocialProvider } from '../social/social.interface';

type GoogleVerify = (
  access: string,
  refresh: string,
  profile: Profile,
  done: VerifyCallback,
) => void;

/** Sends the access token in the Authorization header (as passport-github2 does), not in the URL. */
class GoogleHeaderStrategy extends GoogleStrategy {
  constructor(options: StrategyOptions, verify: GoogleVerify) {
    super(options, verify);
    this._oauth2.useAuthorizationHeaderforGET(true);
  }
}

/**
 * Google sign-in: `passport-google-oauth20` on GOOGLE_CLIENT_ID / GOOGLE_CLIENT_SECRET, with
 * the authorization, token and userinfo endpoints from configuration (tests point them at a
 * local server). No strategy when the id and secret are not set.
 */
@Injectable()
export class AuthGoogleService implements SocialProvider {
  readonly id = 'google' as const;
  readonly strategy: GoogleStrategy | null = null;

  constructor(
    @Inject(oauthConfig.KEY) oauth: ConfigType<typeof oauthConfig>,
    @Inject(appSettingsConfig.KEY) appSettings: ConfigType<typeof appSettingsConfig>,
  ) {
    const google = oauth.google;
    if (!google.clientId || !google.clientSecret) return;
    const baseUrl = appSettings.baseUrl;
    this.strategy = new GoogleHeaderStrategy(
      {
        clientID: google.clientId,
        clientSecret: google.clientSecret,
        callbackURL: `${baseUrl}/api/auth/callback/google`,
        authorizationURL: google.authorizationUrl,
        tokenURL: google.tokenUrl,
        userProfileURL: google.profileUrl,
        scope: ['openid', 'email', 'profile'],
      },
      (_access: string, _refresh: string, profile: Profile, done: VerifyCallback) =>
        done(null, googleProfile(profile._json as Record<string, unknown>)),
    );
  }
}

/**
 * Maps Google's OpenID Connect userinfo (`sub`, `email`, `email_verified`, `name`, `picture`).
 * Only `email_verified: true` (or the string "true" older endpoints send) counts as verified.
 */
export function googleProfile(json: Record<string, unknown>): SocialProfile {
  const text = (v: unknown) => (typeof v === 'string' && v ? v : undefined);
  return {
    id: String(json.sub),
    email: text(json.email),
    emailVerified: json.email_verified === true || json.email_verified === 'true',
    name: text(json.name),
    avatar: text(json.picture),
  };
}
