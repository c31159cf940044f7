import { Inject, Injectable, Logger } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { referralsConfig } from './referrals.config';
import { appSettingsConfig } from '../config/app-settings.config';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';
import { CreditsService } from '../credits/credits.service';
import { returning } from '../credits/sql';
import type { Locale } from '../i18n/locale';
import type { ReferralOverviewDto } from './dto/referral.dto';
import { generateReferralCode, maskName, normaliseReferralCode } from './referral-code';
import type { ReferralStatus } from './referral.entity';
import {
  CODE_OF_USER_SQL,
  CODE_OWNER_SQL,
  INSERT_CODE_SQL,
  INSERT_REFERRAL_SQL,
  IS_REFERRED_SQL,
  RECENT_REFERRALS_SQL,
  REFERRAL_COUNTS_SQL,
} from './referrals.sql';

/** Ledger reference prefix of a referrer's rewards (`referral:<referredId>`, `…:reversal`). */
export const REWARD_REFERENCE = 'referral:';

/** Referral codes, the referral fixed at sign-up, and the referrer's overview. */
@Injectable()
export class ReferralsService {
  private readonly logger = new Logger('Referrals');

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly credits: CreditsService,
    @Inject(referralsConfig.KEY) private readonly referrals: ConfigType<typeof referralsConfig>,
    @Inject(appSettingsConfig.KEY)
    private readonly appSettings: ConfigType<typeof appSettingsConfig>,
  ) {}

  /**
   * The user's code, created on first use: random, retried on the (rare) collision with
   * another user's code; concurrent first uses agree on one code.
   */
  async codeOf(userId: string): Promise<string> {
    for (let attempt = 0; attempt < 5; attempt++) {
      const [row] = await this.dataSource.query(CODE_OF_USER_SQL, [userId]);
      if (row) return row.code;
      await this.dataSource.query(INSERT_CODE_SQL, [userId, generateReferralCode()]);
    }
    throw new Error('could not allocate a referral code');
  }

  /**
   * At sign-up, inside the transaction creating `userId`: records who referred them when
   * `code` names another user; the bonus waits for a verified address (`grantSignupBonus`).
   * An unknown or malformed code, or the user's own, is ignored
   * without an error (it tells nothing about which codes exist). A user already referred keeps
   * their referrer. Returns whether a referral was recorded.
   */
  async attachAtSignup(userId: string, code: unknown, m: EntityManager): Promise<boolean> {
    const normalised = normaliseReferralCode(code);
    if (!normalised) return false;
    const [owner] = await m.query(CODE_OWNER_SQL, [normalised]);
    if (!owner || owner.userId === userId) return false;
    const inserted = await returning<{ referredId: string }>(m, INSERT_REFERRAL_SQL, [
      userId,
      owner.userId,
    ]);
    if (!inserted.length) return false;
    this.logger.log({ referred: userId, referrer: owner.userId }, 'Referral recorded');
    return true;
  }

  /**
   * When `userId` proves their address, inside that transaction `m`: a referred user gets
   * REFERRAL_SIGNUP_BONUS, a BONUS entry keyed `referral-signup:<userId>` (so at most once).
   * Returns whether credits were granted. Made-up addresses never earn it: they never verify.
   */
  async grantSignupBonus(userId: string, m: EntityManager): Promise<boolean> {
    const { signupBonus } = this.referrals;
    if (signupBonus <= 0) return false;
    const [referral] = await m.query(IS_REFERRED_SQL, [userId]);
    if (!referral) return false;
    return this.credits.grant(
      userId,
      signupBonus,
      'BONUS',
      'Referral sign-up bonus',
      `referral-signup:${userId}`,
      m,
    );
  }

  /**
   * `GET /api/referrals`: the user's code and link, how many they invited and how many
   * rewarded them, the net credits earned (rewards less reversals, from the ledger), and the
   * latest referred users with masked names (never an email).
   */
  async overview(userId: string, locale: Locale): Promise<ReferralOverviewDto> {
    const code = await this.codeOf(userId);
    const { baseUrl } = this.appSettings;
    const [counts] = await this.dataSource.query(REFERRAL_COUNTS_SQL, [userId]);
    const recent: { createdAt: Date; status: ReferralStatus; name: string | null }[] =
      await this.dataSource.query(RECENT_REFERRALS_SQL, [userId]);
    return {
      code,
      link: `${baseUrl}/${locale}/signup?ref=${code}`,
      invited: counts.invited,
      rewarded: counts.rewarded,
      creditsEarned: await this.credits.sumByReferencePrefix(userId, REWARD_REFERENCE),
      recent: recent.map((r) => ({
        name: maskName(r.name),
        joinedAt: new Date(r.createdAt).toISOString(),
        status: r.status,
      })),
    };
  }
}
