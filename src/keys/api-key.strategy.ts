import { timingSafeEqual } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { keysConfig } from './keys.config';
import { PassportStrategy } from '@nestjs/passport';
import { InjectDataSource } from '@nestjs/typeorm';
import { ThrottlerStorage } from '@nestjs/throttler';
import type { Request } from 'express';
import { Strategy } from 'passport-http-bearer';
import { DataSource } from 'typeorm';
import type { ApiScope } from '../common/auth/api-scopes';
import type { SessionUser } from '../common/auth/session-user';
import { Clock } from '../common/clock/clock';
import { RateLimitedError } from '../common/errors/app-error';
import { preparedQuery } from '../database/prepared';
import type { Locale } from '../i18n/locale';
import type { Role } from '../users/user.entity';
import { KEY_SQL, TOUCH_KEY_SQL } from './api-keys.sql';
import { hashKey, looksLikeKey, prefixOf } from './key-secret';

interface KeyRow {
  id: string;
  keyHash: Buffer;
  scopes: ApiScope[];
  expiresAt: Date | null;
  lastUsedAt: Date | null;
  /** A team's key: its calls spend from that team's pool. */
  teamId: string | null;
  userId: string;
  email: string;
  name: string | null;
  role: Role;
  plan: string;
  locale: Locale | null;
}

/** `lastUsedAt` is written at most this often per key (ms): one write a minute, not per request. */
const LAST_USED_EVERY_MS = 60_000;

/**
 * `Authorization: Bearer sk-…`, beside the JWT strategy. The key is found by its
 * public prefix and its SHA-256 compared in constant time; revoked, expired or unknown keys
 * fail (the guard answers 401 INVALID_API_KEY). Read from PostgreSQL on every request, so a
 * revocation applies at once on every instance. Each key has API_KEY_RPM requests a minute
 * (429 RATE_LIMITED with Retry-After), counted in Redis when REDIS_URL is set. Keys taken from
 * a query string or a body (which RFC 6750 would allow) are refused: they end up in logs.
 */
@Injectable()
export class ApiKeyStrategy extends PassportStrategy(Strategy, 'api-key') {
  private readonly logger = new Logger(ApiKeyStrategy.name);
  private readonly rpm: number;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(ThrottlerStorage) private readonly counters: ThrottlerStorage,
    private readonly clock: Clock,
    @Inject(keysConfig.KEY) keys: ConfigType<typeof keysConfig>,
  ) {
    super({ passReqToCallback: true });
    this.rpm = keys.apiKeyRpm;
  }

  async validate(req: Request, token: string): Promise<SessionUser | false> {
    if (!looksLikeKey(token) || req.headers.authorization !== `Bearer ${token}`) return false;
    const hash = hashKey(token);
    const rows = await preparedQuery<KeyRow>(this.dataSource, KEY_SQL, [prefixOf(token)]);
    const row = rows.find((r) => timingSafeEqual(r.keyHash, hash));
    const now = this.clock.now();
    if (!row || (row.expiresAt && row.expiresAt <= now)) return false;
    await this.countRequest(row.id);
    if (!row.lastUsedAt || now.getTime() - row.lastUsedAt.getTime() >= LAST_USED_EVERY_MS) {
      // Not awaited: the request does not wait for a bookkeeping write.
      this.dataSource
        .query(TOUCH_KEY_SQL, [row.id, now])
        .catch((err: Error) => this.logger.warn(`lastUsedAt not written: ${err.message}`));
    }
    return {
      id: row.userId,
      email: row.email,
      name: row.name,
      role: row.role,
      plan: row.plan,
      locale: row.locale ?? undefined,
      apiKey: { id: row.id, scopes: row.scopes, ...(row.teamId ? { teamId: row.teamId } : {}) },
    };
  }

  private async countRequest(keyId: string): Promise<void> {
    const r = await this.counters.increment(
      `api-key:${keyId}`,
      60_000,
      this.rpm,
      60_000,
      'api-key',
    );
    if (r.isBlocked) {
      throw new RateLimitedError(
        `API key rate limit of ${this.rpm} requests per minute exceeded`,
        Math.max(1, r.timeToBlockExpire),
      );
    }
  }
}
