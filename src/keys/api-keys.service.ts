import type { SessionUser } from '../common/auth/session-user';
import { TeamsService } from '../teams/teams.service';
import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { type EntityManager, IsNull, Repository } from 'typeorm';
import { AuditService } from '../audit/audit.service';
import { DEFAULT_API_SCOPES, type ApiScope } from '../common/auth/api-scopes';
import { Clock } from '../common/clock/clock';
import { AppError, CommonErrorCode } from '../common/errors/app-error';
import { UsersErrorCode } from '../users/users.errors';
import type { ApiKeyDto, CreatedApiKeyDto } from './dto/api-key.dto';
import { ApiKey } from './api-key.entity';
import { COUNT_ACTIVE_KEYS_SQL, LOCK_USER_KEYS_SQL, OWNER_VERIFIED_SQL } from './api-keys.sql';
import { hashKey, newKeySecret, prefixOf } from './key-secret';

/** At most this many active (neither revoked nor expired) keys per user (409). */
export const MAX_ACTIVE_KEYS = 20;

const keyNotFound = () => new AppError(CommonErrorCode.NOT_FOUND, 'API key not found');

/**
 * Personal API keys: create (the secret is returned once and stored only as a hash), list,
 * rename or re-limit, revoke. A user sees and changes only their own keys (404 otherwise).
 */
@Injectable()
export class ApiKeysService {
  constructor(
    @InjectRepository(ApiKey) private readonly keys: Repository<ApiKey>,
    private readonly clock: Clock,
    private readonly audit: AuditService,
    private readonly teams: TeamsService,
  ) {}

  /**
   * Creates a key. Throws EMAIL_NOT_VERIFIED (403) while the owner's address is not proven (a key
   * would outlive the day its real owner takes the account back), VALIDATION_FAILED (400) for an
   * `expiresAt` not in the future, LIMIT_REACHED (409) at MAX_ACTIVE_KEYS; a per-user advisory
   * lock makes the count and the insert one decision. With `teamId`, a team's key: the caller
   * must be an OWNER or ADMIN of the team (404 for a non-member, 403 for a MEMBER, checked first);
   * its calls spend from the team's pool.
   */
  async create(
    user: SessionUser,
    input: {
      name: string;
      scopes?: ApiScope[];
      expiresAt?: string;
      dailyCreditLimit?: number | null;
      teamId?: string;
    },
  ): Promise<CreatedApiKeyDto> {
    const userId = user.id;
    if (input.teamId) await this.teams.requireTeamRole(user, input.teamId, 'ADMIN');
    const now = this.clock.now();
    const expiresAt = input.expiresAt ? new Date(input.expiresAt) : null;
    if (expiresAt && expiresAt <= now)
      throw new AppError(CommonErrorCode.VALIDATION_FAILED, 'expiresAt must be in the future');
    const key = newKeySecret();
    const saved = await this.keys.manager.transaction(async (m) => {
      await m.query(LOCK_USER_KEYS_SQL, [userId]);
      const [owner] = (await m.query(OWNER_VERIFIED_SQL, [userId])) as { verified: boolean }[];
      if (!owner?.verified)
        throw new AppError(
          UsersErrorCode.EMAIL_NOT_VERIFIED,
          'Confirm your email address before creating API keys',
        );
      const [{ n }] = await m.query(COUNT_ACTIVE_KEYS_SQL, [userId, now]);
      if (n >= MAX_ACTIVE_KEYS)
        throw new AppError(
          CommonErrorCode.LIMIT_REACHED,
          `At most ${MAX_ACTIVE_KEYS} active API keys`,
        );
      const created = await m.save(
        m.create(ApiKey, {
          userId,
          name: input.name,
          prefix: prefixOf(key),
          keyHash: hashKey(key),
          scopes: input.scopes ?? DEFAULT_API_SCOPES,
          expiresAt,
          dailyCreditLimit: input.dailyCreditLimit ?? null,
          teamId: input.teamId ?? null,
        }),
      );
      // The prefix is what the owner sees in lists; never the secret or its hash.
      await this.audit.record(m, {
        action: 'api_key.create',
        targetType: 'api_key',
        targetId: created.id,
        details: {
          name: created.name,
          prefix: created.prefix,
          scopes: created.scopes,
          ...(created.teamId ? { teamId: created.teamId } : {}),
        },
      });
      return created;
    });
    return { ...mapKey(saved), key };
  }

  /** The caller's keys that are not revoked (expired ones included), newest first. */
  async list(userId: string): Promise<ApiKeyDto[]> {
    const rows = await this.keys.find({
      where: { userId, revokedAt: IsNull() },
      order: { createdAt: 'DESC', id: 'DESC' },
    });
    return rows.map(mapKey);
  }

  /** Renames or re-limits one of the caller's keys; NOT_FOUND (404) for another's or a revoked one. */
  async update(
    userId: string,
    id: string,
    patch: { name?: string; dailyCreditLimit?: number | null },
  ): Promise<ApiKeyDto> {
    const key = await this.keys.findOneBy({ id, userId, revokedAt: IsNull() });
    if (!key) throw keyNotFound();
    if (patch.name !== undefined) key.name = patch.name;
    if (patch.dailyCreditLimit !== undefined) key.dailyCreditLimit = patch.dailyCreditLimit;
    return mapKey(await this.keys.save(key));
  }

  /**
   * Revokes a key at once: every instance reads the key from PostgreSQL on each request, so the
   * next request with it is 401 everywhere. NOT_FOUND (404) for another's or a revoked key.
   */
  async revoke(userId: string, id: string): Promise<{ id: string; revokedAt: string }> {
    const revokedAt = this.clock.now();
    await this.keys.manager.transaction(async (m) => {
      const result = await m.update(ApiKey, { id, userId, revokedAt: IsNull() }, { revokedAt });
      if (!result.affected) throw keyNotFound();
      await this.audit.record(m, { action: 'api_key.revoke', targetType: 'api_key', targetId: id });
    });
    return { id, revokedAt: revokedAt.toISOString() };
  }

  /**
   * Revokes every key of `userId` inside `m` (an account taken back from whoever held it);
   * returns how many were revoked.
   */
  async revokeAllOf(userId: string, m: EntityManager): Promise<number> {
    const result = await m.update(
      ApiKey,
      { userId, revokedAt: IsNull() },
      { revokedAt: this.clock.now() },
    );
    return result.affected ?? 0;
  }
}

export function mapKey(k: ApiKey): ApiKeyDto {
  return {
    id: k.id,
    name: k.name,
    prefix: k.prefix,
    scopes: k.scopes,
    expiresAt: k.expiresAt?.toISOString() ?? null,
    dailyCreditLimit: k.dailyCreditLimit,
    teamId: k.teamId,
    lastUsedAt: k.lastUsedAt?.toISOString() ?? null,
    createdAt: k.createdAt.toISOString(),
  };
}
