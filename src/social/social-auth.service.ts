import { Injectable } from '@nestjs/common';
import { AppError } from '../common/errors/app-error';
import { UsersErrorCode } from '../users/users.errors';
import type { User } from '../users/user.entity';
import { ReferralsService } from '../referrals/referrals.service';
import { UsersService } from '../users/users.service';
import { UserAddresses } from '../users/user-addresses.service';
import { EmailVerificationService } from '../auth/account/email-verification.service';
import { AccountTakeoverService } from './account-takeover.service';
import type { SocialProfile, SocialProviderId } from './social.interface';
import { SocialLoginError, SocialLoginErrorCode } from './social-login.error';

// Column limits of users.email, users.name and users.avatar.
const MAX_EMAIL = 320;
const MAX_NAME = 100;
const MAX_AVATAR = 2048;

/** Account rules of social login, shared by every provider module. */
@Injectable()
export class SocialAuthService {
  constructor(
    private readonly users: UsersService,
    private readonly addresses: UserAddresses,
    private readonly referrals: ReferralsService,
    private readonly verification: EmailVerificationService,
    private readonly takeover: AccountTakeoverService,
  ) {}

  /**
   * The user for a completed social login (spec Authentication 2), ADMIN_EMAILS applied:
   * 1. an identity linked before (`accounts` row) signs in as its user, whatever the email;
   * 2. a verified email of an existing user is linked to that user; when that user never proved
   *    the address, the social identity takes the account over first (AccountTakeoverService:
   *    the unproven password, second factor, keys and sessions end, the address is verified);
   * 3. a verified email nobody uses creates a verified user without a password (SIGNUP_CREDITS
   *    granted once through the ledger) and links the identity.
   * Throws SocialLoginError OAuthAccountNotLinked when the email belongs to a user but the
   * provider did not verify it (no takeover through an unverified address), and
   * OAuthCreateAccount when there is no verified email to create an account with.
   * `referralCode` is recorded only when an account is created (case 3).
   */
  async validateSocialLogin(
    provider: SocialProviderId,
    profile: SocialProfile,
    referralCode?: string,
  ): Promise<User> {
    try {
      return await this.resolve(provider, profile, referralCode);
    } catch (err) {
      // Two first logins of one person raced and the other created the user: link to it.
      if (err instanceof AppError && err.code === UsersErrorCode.EMAIL_TAKEN)
        return this.resolve(provider, profile, referralCode);
      throw err;
    }
  }

  private async resolve(
    provider: SocialProviderId,
    profile: SocialProfile,
    referralCode?: string,
  ): Promise<User> {
    const linked = await this.users.findByAccount(provider, profile.id);
    if (linked) return this.addresses.applyAdminEmails(linked);

    const email = normaliseEmail(profile.email);
    const existing = email ? await this.users.findByEmail(email) : null;
    if (!email || !profile.emailVerified) {
      if (existing)
        throw new SocialLoginError(
          SocialLoginErrorCode.OAuthAccountNotLinked,
          `The ${provider} account's email is not verified; it cannot be linked`,
        );
      throw new SocialLoginError(
        SocialLoginErrorCode.OAuthCreateAccount,
        `The ${provider} account has no verified email`,
      );
    }
    if (existing && !existing.emailVerifiedAt) await this.takeover.reclaim(existing.id, provider);
    const user =
      existing ??
      (await this.users.create({
        email,
        name: profile.name?.trim().slice(0, MAX_NAME) || null,
        avatar: safeAvatar(profile.avatar),
        afterCreate: async (created, m) => {
          await this.referrals.attachAtSignup(created.id, referralCode, m);
          await this.verification.markVerified(created.id, m);
        },
      }));
    return this.addresses.applyAdminEmails(
      await this.users.linkAccount(user.id, provider, profile.id),
    );
  }
}

function normaliseEmail(email: string | undefined): string | undefined {
  const value = email?.trim().toLowerCase();
  return value && value.length <= MAX_EMAIL && value.includes('@') ? value : undefined;
}

/** The provider's picture URL when it is http(s) and fits the column, else null. */
function safeAvatar(url: string | undefined): string | null {
  if (!url || url.length > MAX_AVATAR) return null;
  return /^https?:\/\//i.test(url) ? url : null;
}
