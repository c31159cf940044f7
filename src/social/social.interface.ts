import type { Strategy as OAuth2Strategy } from 'passport-oauth2';

/** Ids of the social providers (spec Authentication 2); also `accounts.provider`. */
export const SOCIAL_PROVIDERS = ['google', 'github'] as const;
export type SocialProviderId = (typeof SOCIAL_PROVIDERS)[number];

/** What a provider module tells `validateSocialLogin` about the person who signed in. */
export interface SocialProfile {
  /** The provider's stable account id (Google `sub`, GitHub's numeric `id` as a string). */
  id: string;
  /** The address the provider gave, when it gave one. */
  email?: string;
  /** True only when the provider says it verified `email`. */
  emailVerified: boolean;
  name?: string;
  /** Picture URL. */
  avatar?: string;
}

/** One provider module as the shared sign-in flow sees it. */
export interface SocialProvider {
  readonly id: SocialProviderId;
  /**
   * The configured passport strategy, whose verify callback yields a `SocialProfile`; null when
   * the provider's client id and secret are not set (its routes then answer 404).
   */
  readonly strategy: OAuth2Strategy | null;
}
