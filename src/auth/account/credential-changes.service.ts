import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';
import { ApiKeysService } from '../../keys/api-keys.service';
import type { RemovedAccess } from '../../mail/mail.types';
import { UsersService } from '../../users/users.service';
import { TwoFactorService } from '../two-factor/two-factor.service';
import { AccountTokens } from './account-tokens.service';
import { DELETE_CHATS_SQL, DELETE_MEMBERSHIPS_SQL, DELETE_TASKS_SQL } from './squatted-data.sql';

/** What a credential change ended. */
export interface EndedAccess {
  /** Unused mailed links (email change, verification, reset) that stopped working. */
  linksRevoked: number;
  /** API keys revoked (0 unless asked for). */
  keysRevoked: number;
}

/** What taking back an account whose address was never proven removed. */
export interface ReclaimedAccount extends EndedAccess {
  /** Whether two-factor was on (it is off now; a pending setup is gone too). */
  twoFactorRemoved: boolean;
  /** Whether chats, tasks, team memberships and preferences were cleared. */
  dataCleared: boolean;
  /** Chats, tasks and team memberships deleted (0 when the data was kept). */
  chatsDeleted: number;
  tasksDeleted: number;
  teamsLeft: number;
}

/**
 * What a change of credentials ends. A password change or reset, "end all sessions", and the
 * first proof of an address each end every unused mailed link of the account and record the
 * moment (`credentialsChangedAt`), so a link issued before it is refused even if it escaped the
 * revocation (a concurrent request). When an address is proven for the first time by someone who
 * need not be whoever created the account (a reset link, a verification link, a verified social
 * identity), everything that party could have set up to keep access goes too.
 */
@Injectable()
export class CredentialChanges {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly users: UsersService,
    private readonly tokens: AccountTokens,
    private readonly apiKeys: ApiKeysService,
    private readonly twoFactor: TwoFactorService,
  ) {}

  /**
   * Records that `userId`'s credentials changed now and ends every unused mailed link; with
   * `revokeKeys`, revokes every API key too. Inside `m` when given, else in a transaction of its
   * own. Sessions are the caller's (token version or session rows).
   */
  async ended(
    userId: string,
    opts: { m?: EntityManager; revokeKeys?: boolean } = {},
  ): Promise<EndedAccess> {
    const run = async (m: EntityManager): Promise<EndedAccess> => {
      await this.users.markCredentialsChanged(userId, m);
      const linksRevoked = await this.tokens.revokeAll(userId, m);
      const keysRevoked = opts.revokeKeys ? await this.apiKeys.revokeAllOf(userId, m) : 0;
      return { linksRevoked, keysRevoked };
    };
    return opts.m ? run(opts.m) : this.dataSource.transaction(run);
  }

  /**
   * Inside `m`: the account `userId`, whose address was just proven for the first time, loses
   * what was set up while nobody had proven it: its API keys, its second factor, its unused
   * links; with `clearData` (the account changes hands: a reset or a social identity takes it),
   * also its chats, scheduled tasks, team memberships and preferences. Credits and the ledger
   * stay. The password and the sessions are the caller's.
   */
  async reclaimUnproven(
    userId: string,
    m: EntityManager,
    opts: { clearData: boolean },
  ): Promise<ReclaimedAccount> {
    const { linksRevoked, keysRevoked } = await this.ended(userId, { m, revokeKeys: true });
    const twoFactorRemoved = await this.twoFactor.removeFor(userId, m);
    const cleared = { chatsDeleted: 0, tasksDeleted: 0, teamsLeft: 0 };
    if (opts.clearData) {
      cleared.chatsDeleted = await count(m, DELETE_CHATS_SQL, userId);
      cleared.tasksDeleted = await count(m, DELETE_TASKS_SQL, userId);
      cleared.teamsLeft = await count(m, DELETE_MEMBERSHIPS_SQL, userId);
      await this.users.clearPreferences(userId, m);
    }
    return {
      linksRevoked,
      keysRevoked,
      twoFactorRemoved,
      dataCleared: opts.clearData,
      ...cleared,
    };
  }
}

/** Runs a DELETE … RETURNING for `userId` and answers how many rows it removed. */
async function count(m: EntityManager, sql: string, userId: string): Promise<number> {
  const [rows] = (await m.query(sql, [userId])) as [unknown[], number];
  return rows.length;
}

/** The mail's view of what a credential change, or taking back an unproven account, removed. */
export function removedAccess(r: EndedAccess & Partial<ReclaimedAccount>): RemovedAccess {
  return {
    keys: r.keysRevoked,
    twoFactor: r.twoFactorRemoved ?? false,
    links: r.linksRevoked,
    data: r.dataCleared ?? false,
  };
}
