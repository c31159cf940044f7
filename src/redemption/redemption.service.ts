import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import { AuditService } from '../audit/audit.service';
import { Clock } from '../common/clock/clock';
import { AppError } from '../common/errors/app-error';
import { CreditsService } from '../credits/credits.service';
import { returning } from '../credits/sql';
import { RedeemRateLimit } from './redeem-rate-limit';
import { hashRedemptionCode, normaliseRedemptionCode } from './redemption-code';
import { RedemptionErrorCode } from './redemption.errors';
import { TAKE_USE_SQL, WHY_REFUSED_SQL } from './redemption.sql';

/** The use TAKE_USE_SQL took. */
interface TakenUse {
  codeId: string;
  use: number;
  batchId: string;
  name: string;
  credits: number;
  onePerUser: boolean;
}

/** What a redemption granted: credits, and the balance after. */
export interface Redemption {
  credits: number;
  balance: number;
}

/**
 * Redeems a code for the session user. One transaction: the use is taken by compare-and-swap on
 * the code's row, then CreditsService writes the REDEMPTION entry with its balance change, keyed
 * `redemption:<codeId>:<userId>` (one per user and code when the batch says onePerUser, else with
 * the use's number appended), then the audit row. Any refusal rolls the use back.
 */
@Injectable()
export class RedemptionService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly credits: CreditsService,
    private readonly audit: AuditService,
    private readonly rate: RedeemRateLimit,
    private readonly clock: Clock,
  ) {}

  /**
   * Grants `typed`'s credits to `userId` (the code as typed: spaces, hyphens and lower case are
   * read away). Throws RATE_LIMITED (429) past REDEEM_RATE_PER_HOUR attempts of the user or of
   * `ip`; CODE_EXPIRED (410) for a code of an expired batch with uses left; CODE_ALREADY_REDEEMED
   * (409) for the user's second use of a onePerUser code; and CODE_INVALID (404), one answer
   * alike, for an unknown, used-up or disabled code.
   */
  async redeem(userId: string, typed: string, ip: string): Promise<Redemption> {
    await this.rate.admit(userId, ip);
    const code = normaliseRedemptionCode(typed);
    if (!code) throw codeInvalid();
    const hash = hashRedemptionCode(code);
    const now = this.clock.now();
    return this.dataSource.transaction(async (m) => {
      const [use] = await returning<TakenUse>(m, TAKE_USE_SQL, [hash, now]);
      if (!use) throw await this.whyRefused(m, hash, now);
      const reference = use.onePerUser
        ? `redemption:${use.codeId}:${userId}`
        : `redemption:${use.codeId}:${userId}:${use.use}`;
      const granted = await this.credits.grant(
        userId,
        use.credits,
        'REDEMPTION',
        `Redemption code (${use.name})`,
        reference,
        m,
      );
      if (!granted)
        throw new AppError(
          RedemptionErrorCode.CODE_ALREADY_REDEEMED,
          'You have redeemed this code already',
        );
      await this.audit.record(m, {
        action: 'credits.redeem',
        targetType: 'redemption_batch',
        targetId: use.batchId,
        details: { codeId: use.codeId, use: use.use, credits: use.credits },
      });
      return { credits: use.credits, balance: await this.credits.balance(userId, m) };
    });
  }

  /**
   * Why the code was refused: CODE_EXPIRED when it could still be used but for its batch's
   * expiry; CODE_INVALID otherwise (unknown, used up, disabled: not told apart).
   */
  private async whyRefused(m: EntityManager, hash: string, now: Date): Promise<AppError> {
    const [code] = await m.query(WHY_REFUSED_SQL, [hash]);
    const expired =
      code &&
      !code.usedUp &&
      !code.disabled &&
      code.expiresAt !== null &&
      code.expiresAt.getTime() <= now.getTime();
    return expired
      ? new AppError(RedemptionErrorCode.CODE_EXPIRED, 'This code has expired')
      : codeInvalid();
  }
}

function codeInvalid(): AppError {
  return new AppError(RedemptionErrorCode.CODE_INVALID, 'This code is not valid');
}
