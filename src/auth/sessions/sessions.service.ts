import { Inject, Injectable, Logger } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { sharedConfig } from '../../config/shared.config';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { currentRequest } from '../../audit/request-context';
import { AppError, CommonErrorCode } from '../../common/errors/app-error';
import { preparedQuery } from '../../database/prepared';
import { SessionCache } from '../../users/session-cache';
import type { User } from '../../users/user.entity';
import { CredentialChanges } from '../account/credential-changes.service';
import { mapSignedInSession, type SignedInSessionDto, type SessionRow } from './dto/sessions.dto';
import {
  FIND_SESSION_SQL,
  LIST_SESSIONS_SQL,
  OPEN_SESSION_SQL,
  REVOKE_OTHER_SESSIONS_SQL,
  REVOKE_SESSION_SQL,
  TOUCH_SESSION_SQL,
} from './sessions.sql';

/** What a request needs of its session, kept in the SessionCache under the session's id. */
export interface SessionRecord {
  userId: string;
  revoked: boolean;
  /** When the row's `lastSeenAt` was last written, Unix milliseconds. */
  lastSeenMs: number;
}

/** `lastSeenAt` is written at most this often per session. */
const TOUCH_INTERVAL_MS = 60_000;
/** The list shows at most this many sessions, newest first. */
export const MAX_LISTED_SESSIONS = 200;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The server side of session tokens: one `sessions` row per sign-in, named by the token's `sid`.
 * A request checks its row from the process's SessionCache (no query once the process knows the
 * session); revoking it notifies every process through PostgreSQL at commit, and the revoking
 * request answers only after every listening process acknowledged it (`SessionCache.sync`).
 */
@Injectable()
export class SessionsService {
  private readonly logger = new Logger(SessionsService.name);

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly cache: SessionCache<SessionRecord>,
    @Inject(sharedConfig.KEY) private readonly shared: ConfigType<typeof sharedConfig>,
    private readonly changes: CredentialChanges,
  ) {}

  /**
   * Opens a session of `user` for AUTH_SESSION_MAX_AGE seconds, recording the current request's
   * user agent and client address, and returns its id (the token's `sid`).
   */
  async open(user: Pick<User, 'id' | 'tokenVersion'>): Promise<string> {
    const { userAgent, ip } = currentRequest();
    const maxAge = this.shared.sessionMaxAge;
    const [row] = await preparedQuery<{ id: string }>(this.dataSource, OPEN_SESSION_SQL, [
      user.id,
      user.tokenVersion,
      maxAge,
      userAgent,
      ip,
    ]);
    return row.id;
  }

  /**
   * Whether session `sid` exists, belongs to user `userId` and has not been revoked (expiry and
   * token version are the token's own checks). Read from the SessionCache when it can be, else one
   * indexed row. Records the use (`lastSeenAt`) at most once a minute, off the request's path.
   */
  async isActive(sid: string, userId: string): Promise<boolean> {
    if (!UUID.test(sid)) return false;
    const row = await this.cache.read(sid, async () => {
      const [found] = await preparedQuery<SessionRecord>(this.dataSource, FIND_SESSION_SQL, [sid]);
      return found ?? null;
    });
    if (!row || row.userId !== userId || row.revoked) return false;
    this.touch(sid, row);
    return true;
  }

  /**
   * The sessions of `userId` that have not expired (at most MAX_LISTED_SESSIONS, newest first),
   * ended ones included and marked; `currentSid` is marked `current`.
   */
  async list(userId: string, currentSid: string | undefined): Promise<SignedInSessionDto[]> {
    const rows = await preparedQuery<SessionRow>(this.dataSource, LIST_SESSIONS_SQL, [
      userId,
      MAX_LISTED_SESSIONS,
    ]);
    return rows.map((r) => mapSignedInSession(r, currentSid));
  }

  /**
   * Ends session `sid` of `userId`; returns 1, or 0 when it had ended already. Answers once
   * every process was told. Throws AppError NOT_FOUND (404) when `userId` has no such session
   * (someone else's included).
   */
  async revoke(userId: string, sid: string): Promise<number> {
    const rows = await preparedQuery<{ id: string; ended: boolean }>(
      this.dataSource,
      REVOKE_SESSION_SQL,
      [sid, userId],
    );
    if (!rows.length) throw new AppError(CommonErrorCode.NOT_FOUND, 'Session not found');
    await this.announce(rows);
    return rows[0].ended ? 1 : 0;
  }

  /**
   * Sign-out: ends the caller's own session `sid`, if it still exists (a session deleted with its
   * account meanwhile is no error). Answers once every process was told.
   */
  async signOut(userId: string, sid: string): Promise<void> {
    const rows = await preparedQuery<{ id: string }>(this.dataSource, REVOKE_SESSION_SQL, [
      sid,
      userId,
    ]);
    await this.announce(rows);
  }

  /**
   * "End all sessions": ends every live session of `userId` but `keepSid`, and every unused
   * mailed link of the account (a pending email change included); returns how many sessions
   * ended.
   */
  async revokeOthers(userId: string, keepSid: string | undefined): Promise<number> {
    await this.changes.ended(userId);
    const rows = await preparedQuery<{ id: string }>(this.dataSource, REVOKE_OTHER_SESSIONS_SQL, [
      userId,
      keepSid ?? null,
    ]);
    await this.announce(rows);
    return rows.length;
  }

  /** Drops the ended sessions here at once and waits until every process has dropped them. */
  private async announce(rows: { id: string }[]): Promise<void> {
    for (const { id } of rows) this.cache.forget(id);
    if (rows.length) await this.cache.sync();
  }

  private touch(sid: string, row: SessionRecord): void {
    const now = Date.now();
    if (now - row.lastSeenMs < TOUCH_INTERVAL_MS) return;
    // The cached row remembers the write, so this process's next requests skip it.
    row.lastSeenMs = now;
    preparedQuery(this.dataSource, TOUCH_SESSION_SQL, [sid]).catch((err: Error) =>
      this.logger.warn(`Could not record the session's last use: ${err.message}`),
    );
  }
}
