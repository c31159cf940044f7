import { Inject, Injectable } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { oauthConfig } from '../social/social.config';
import { appSettingsConfig } from '../config/app-settings.config';
import { Strategy as GitHubStrategy, type Profile } from 'passport-github2';
import type { VerifyCallback } from 'passport-oauth2';
import type { SocialProfile, SocialProvider } from '../social/social.interface';

/** One entry of GitHub's `GET /user/emails`, as passport-github2 passes it with allRawEmails. */
interface GitHubEmail {
  value: string;
  primary?: boolean;
  verified?: boolean;
}

/** passport-github2 also keeps the raw `GET /user` JSON, which its types leave out. */
type GitHubPassportProfile = Profile & { _json?: Record<string, unknown> };

/**
 * GitHub sign-in: `passport-github2` on GITHUB_CLIENT_ID / GITHUB_CLIENT_SECRET, with the
 * authorization, token, user and emails endpoints from configuration. Scope `user:email`, so
 * the emails API tells which address is primary and verified. No strategy when unconfigured.
 */
@Injectable()
export class AuthGithubService implements SocialProvider {
  readonly id = 'github' as const;
  readonly strategy: GitHubStrategy | null = null;

  constructor(
    @Inject(oauthConfig.KEY) oauth: ConfigType<typeof oauthConfig>,
    @Inject(appSettingsConfig.KEY) appSettings: ConfigType<typeof appSettingsConfig>,
  ) {
    const github = oauth.github;
    if (!github.clientId || !github.clientSecret) return;
    const baseUrl = appSettings.baseUrl;
    this.strategy = new GitHubStrategy(
      {
        clientID: github.clientId,
        clientSecret: github.clientSecret,
        callbackURL: `${baseUrl}/api/auth/callback/github`,
        authorizationURL: github.authorizationUrl,
        tokenURL: github.tokenUrl,
        userProfileURL: github.profileUrl,
        userEmailURL: github.emailsUrl,
        scope: ['read:user', 'user:email'],
        // Every address with its `primary` and `verified` flags, not just the primary one.
        allRawEmails: true,
        userAgent: 'ai-chat-credits-backend',
      },
      (_access: string, _refresh: string, profile: GitHubPassportProfile, done: VerifyCallback) =>
        done(null, githubProfile(profile._json ?? {}, (profile.emails ?? []) as GitHubEmail[])),
    );
  }
}

/**
 * Maps GitHub's `GET /user` (`id`, `login`, `name`, `avatar_url`) and `GET /user/emails`. The
 * email is the primary one, verified only when GitHub marks that same address verified.
 */
export function githubProfile(json: Record<string, unknown>, emails: GitHubEmail[]): SocialProfile {
  const text = (v: unknown) => (typeof v === 'string' && v ? v : undefined);
  const primary = emails.find((e) => e.primary === true && typeof e.value === 'string');
  return {
    id: String(json.id),
    email: primary?.value,
    emailVerified: primary?.verified === true,
    name: text(json.name) ?? text(json.login),
    avatar: text(json.avatar_url),
  };
}
