import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { Clock } from '../../common/clock/clock';
import { SecretBox } from '../../common/crypto/secret-box';
import { AppError } from '../../common/errors/app-error';
import { AuthErrorCode } from '../auth.errors';
import { generateRecoveryCodes, normalizeRecoveryCode } from './recovery-codes';
import { matchTotpStep } from './totp';
import { TwoFactorAttempts } from './two-factor-attempts';
import { RecoveryCode, TwoFactor } from './two-factor.entity';
import {
  RECOVERY_CODES_LEFT_SQL,
  USE_RECOVERY_CODE_SQL,
  USE_TOTP_STEP_SQL,
} from './two-factor.sql';

/** What proves the second factor: a TOTP `code`, or a single-use `recoveryCode`. */
export interface SecondFactorProof {
  code?: string;
  recoveryCode?: string;
}

const RECOVERY_MAC_PURPOSE = 'recovery-code';

/** Checking second-factor codes, and the recovery code sets they are checked against. */
@Injectable()
export class TwoFactorCodesService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly box: SecretBox,
    private readonly clock: Clock,
    private readonly attempts: TwoFactorAttempts,
  ) {}

  /**
   * Accepts `proof` for user `userId` or throws, rate limited per user and per `ip`:
   * - a TOTP code of the current step ±1 (Clock time) that is newer than the last accepted
   *   step, which it then becomes (so a code is never accepted twice for one step); against
   *   the pending secret when `state` is `pending`, else the enabled one;
   * - or (state `enabled` only) an unused recovery code, which is then used up.
   * Throws RateLimitedError (429) while locked out, AppError TWO_FACTOR_CODE_INVALID (401,
   * counted as a failure) when the proof does not hold.
   */
  async check(
    userId: string,
    ip: string | undefined,
    proof: SecondFactorProof,
    state: 'enabled' | 'pending' = 'enabled',
  ): Promise<void> {
    await this.attempts.assertAllowed(userId, ip);
    const ok =
      proof.recoveryCode !== undefined
        ? state === 'enabled' && (await this.useRecoveryCode(userId, proof.recoveryCode))
        : await this.useTotp(userId, proof.code ?? '', state);
    if (ok) return;
    await this.attempts.recordFailure(userId, ip);
    throw new AppError(AuthErrorCode.TWO_FACTOR_CODE_INVALID, 'Invalid two-factor code');
  }

  /**
   * Replaces the user's recovery codes with a fresh set (inside `m`'s transaction) and returns
   * the codes in clear, to be shown once; only their HMAC-SHA256 under ENCRYPTION_KEY is stored.
   */
  async replaceRecoveryCodes(userId: string, m: EntityManager): Promise<string[]> {
    const codes = generateRecoveryCodes();
    await m.delete(RecoveryCode, { userId });
    await m.insert(
      RecoveryCode,
      codes.map((c) => ({ userId, codeHash: this.hash(normalizeRecoveryCode(c)!) })),
    );
    return codes;
  }

  /** How many unused recovery codes the user has left. */
  async recoveryCodesLeft(userId: string): Promise<number> {
    const [row] = await this.dataSource.query<{ n: number }[]>(RECOVERY_CODES_LEFT_SQL, [userId]);
    return row.n;
  }

  private async useTotp(userId: string, code: string, state: 'enabled' | 'pending') {
    const row = await this.dataSource.getRepository(TwoFactor).findOneBy({ userId });
    if (!row || (state === 'enabled') !== (row.enabledAt !== null)) return false;
    const step = matchTotpStep(this.box.open(row.secret, userId), code, this.clock.now());
    if (step === null) return false;
    // Conditional on the same secret (a concurrent setup may replace a pending one) and on a
    // newer step: two requests racing with one code cannot both pass.
    // TypeORM answers an UPDATE with [rows, affected count].
    const [, updated] = await this.dataSource.query<[unknown[], number]>(USE_TOTP_STEP_SQL, [
      userId,
      step,
      row.secret,
    ]);
    return updated === 1;
  }

  private async useRecoveryCode(userId: string, input: string): Promise<boolean> {
    const code = normalizeRecoveryCode(input);
    if (!code) return false;
    // The lookup is by keyed hash, so its timing says nothing about the stored codes.
    const [, used] = await this.dataSource.query<[unknown[], number]>(USE_RECOVERY_CODE_SQL, [
      userId,
      this.hash(code),
    ]);
    return used === 1;
  }

  private hash(normalized: string): string {
    return this.box.mac(RECOVERY_MAC_PURPOSE, normalized);
  }
}
