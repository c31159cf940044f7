/** Values of `error` in `/auth/signin?error=…` (NextAuth's names), besides the provider's own. */
export enum SocialLoginErrorCode {
  /** Wrong, missing or expired state; a failed code exchange or profile request. */
  OAuthCallback = 'OAuthCallback',
  /** The email belongs to an account and the provider did not say it verified that email. */
  OAuthAccountNotLinked = 'OAuthAccountNotLinked',
  /** No account yet, and the provider gave no verified email to create one with. */
  OAuthCreateAccount = 'OAuthCreateAccount',
}

/** A refused social login; the flow turns it into a redirect to the sign-in page. */
export class SocialLoginError extends Error {
  constructor(
    readonly code: SocialLoginErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'SocialLoginError';
  }
}
