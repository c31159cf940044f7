import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { createHash, randomBytes } from 'node:crypto';
import { DataSource, type EntityManager } from 'typeorm';
import { AppError } from '../../common/errors/app-error';
import { AuthErrorCode } from '../auth.errors';
import {
  CONSUME_TOKEN_SQL,
  EMAIL_CHANGES_TODAY_SQL,
  ISSUE_TOKEN_SQL,
  LOCK_EMAIL_CHANGES_SQL,
  REVOKE_USER_TOKENS_SQL,
  SUPERSEDE_TOKENS_SQL,
} from './account-tokens.sql';

/** What a mailed link may do; a token proves nothing outside its purpose. */
export type TokenPurpose = 'verify_email' | 'reset_password' | 'change_email';

/** Lifetime of each kind of link, in seconds: verification and email change 24 h, reset 1 h. */
export const TOKEN_LIFETIME_SECONDS: Record<TokenPurpose, number> = {
  verify_email: 24 * 3600,
  reset_password: 3600,
  change_email: 24 * 3600,
};

/** What a consumed token was issued for. */
export interface ConsumedToken {
  userId: string;
  /** change_email only: the address the account moves to. */
  newEmail: string | null;
}

/**
 * The single-use tokens of mailed links (table `account_tokens`). A token is 32 random bytes in
 * base64url (43 characters), handed out once; only its SHA-256 is stored (like API key
 * secrets: 256 random bits need no slow hash), so a copy of the table opens no account.
 */
@Injectable()
export class AccountTokens {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * A new token for `userId` and `purpose`, valid TOKEN_LIFETIME_SECONDS[purpose]; earlier
   * unused tokens of the same user and purpose stop working (the newest link is the one that
   * counts). `newEmail`: change_email's target address. Returns the token in clear.
   */
  async issue(
    userId: string,
    purpose: TokenPurpose,
    opts: { newEmail?: string; manager?: EntityManager } = {},
  ): Promise<string> {
    const token = randomBytes(32).toString('base64url');
    const run = async (m: EntityManager) => {
      await m.query(SUPERSEDE_TOKENS_SQL, [userId, purpose]);
      await m.query(ISSUE_TOKEN_SQL, [
        userId,
        purpose,
        hashToken(token),
        opts.newEmail ?? null,
        TOKEN_LIFETIME_SECONDS[purpose],
      ]);
    };
    if (opts.manager) await run(opts.manager);
    else await this.dataSource.transaction(run);
    return token;
  }

  /**
   * Uses `token` up for `purpose` inside `m`'s transaction (one conditional UPDATE, so two
   * concurrent uses cannot both succeed; a rollback gives it back). Throws AppError INVALID_TOKEN
   * (400) for a token that is unknown, of another purpose, used, expired, or issued before the
   * account's last credential change, with one message.
   */
  async consume(token: string, purpose: TokenPurpose, m: EntityManager): Promise<ConsumedToken> {
    const [rows] = (await m.query(CONSUME_TOKEN_SQL, [hashToken(token), purpose])) as [
      ConsumedToken[],
      number,
    ];
    if (!rows.length) throw invalidToken();
    return rows[0];
  }

  /**
   * Ends every unused link of `userId` (inside `m`), e.g. once their address or credentials
   * changed. Returns how many were still usable.
   */
  async revokeAll(userId: string, m: EntityManager): Promise<number> {
    const [rows] = (await m.query(REVOKE_USER_TOKENS_SQL, [userId])) as [unknown[], number];
    return rows.length;
  }

  /**
   * How many email change links `userId` asked for in the last 24 hours (used or not), inside
   * `m`'s transaction, holding the user's email-change lock until it ends: a count and the link
   * issued after it are one decision.
   */
  async emailChangesToday(userId: string, m: EntityManager): Promise<number> {
    await m.query(LOCK_EMAIL_CHANGES_SQL, [userId]);
    const [row] = (await m.query(EMAIL_CHANGES_TODAY_SQL, [userId])) as { n: number }[];
    return row.n;
  }
}

/** The one answer for every token that does not work. */
export function invalidToken(): AppError {
  return new AppError(AuthErrorCode.INVALID_TOKEN, 'This link is invalid or has expired');
}

function hashToken(token: string): Buffer {
  return createHash('sha256').update(token, 'utf8').digest();
}
