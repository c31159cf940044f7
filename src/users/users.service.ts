import { Injectable } from '@nestjs/common';
import { InjectDataSource, InjectRepository } from '@nestjs/typeorm';
import { DataSource, EntityManager, Repository } from 'typeorm';
import { AuditService } from '../audit/audit.service';
import { AppError } from '../common/errors/app-error';
import { UsersErrorCode } from './users.errors';
import { decodeCursor, pageSize, toPage } from '../common/pagination/pagination';
import { CreditsService } from '../credits/credits.service';
import { UploadsService } from '../uploads/uploads.service';
import type { UpdateProfileDto, UpdateUserDto } from './dto/user.dto';
import { Account } from './account.entity';
import { asEmailTaken } from './email-taken';
import { SessionCache } from './session-cache';
import { User, type Plan } from './user.entity';
import { preparedQuery } from '../database/prepared';
import {
  BUMP_TOKEN_VERSION_SQL,
  CLEAR_PREFERENCES_SQL,
  LINK_ACCOUNT_SQL,
  MARK_CREDENTIALS_CHANGED_SQL,
  SESSION_USER_SQL,
  SET_PAYMENT_CUSTOMER_SQL,
} from './users.sql';

// The shapes live in users.types.ts; callers keep importing NewUser from here.
export type { NewUser } from './users.types';
import type { NewUser, SessionRow } from './users.types';

/** Users and their profile; balances change only through CreditsService. */
@Injectable()
export class UsersService {
  constructor(
    @InjectRepository(User) private readonly users: Repository<User>,
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly credits: CreditsService,
    private readonly uploads: UploadsService,
    private readonly sessions: SessionCache<SessionRow>,
    private readonly audit: AuditService,
  ) {}

  /**
   * Creates a user, unverified and without credits: the sign-up bonus and ADMIN_EMAILS wait for
   * a proven address (`markEmailVerified`). `afterCreate` runs in the same transaction. Throws
   * AppError EMAIL_TAKEN (409) for an existing email.
   */
  async create(input: NewUser): Promise<User> {
    const email = input.email.trim().toLowerCase();
    try {
      return await this.dataSource.transaction(async (m) => {
        const user = await m.save(
          m.create(User, {
            email,
            name: input.name ?? null,
            avatar: input.avatar ?? null,
            role: input.role ?? 'USER',
            plan: input.plan ?? 'FREE',
            password: input.passwordHash ?? null,
            credits: 0,
          }),
        );
        await input.afterCreate?.(user, m);
        return m.findOneByOrFail(User, { id: user.id });
      });
    } catch (err) {
      throw asEmailTaken(err);
    }
  }

  /** Throws AppError USER_NOT_FOUND (404). */
  async get(id: string): Promise<User> {
    const user = await this.users.findOneBy({ id });
    if (!user) throw new AppError(UsersErrorCode.USER_NOT_FOUND, 'User not found');
    return user;
  }

  /** `manager` reads inside a caller's transaction (no second pooled connection). */
  findById(id: string, manager?: EntityManager): Promise<User | null> {
    return manager ? manager.findOneBy(User, { id }) : this.users.findOneBy({ id });
  }

  /**
   * The session fields of user `id` (`{id, email, name, role, tokenVersion, plan, locale,
   * preferences}`), or null when the account is gone. Read on every authenticated request, so one
   * indexed row, without entity hydration, as a prepared statement. `locale` is the preference
   * panel's and `preferences` the whole panel, read here so translated errors and
   * metered requests (model defaults, stream format) need no query of their own. Served from the
   * SessionCache when it can be.
   */
  async findSessionUser(id: string): Promise<SessionRow | null> {
    return this.sessions.read(id, async () => {
      const [row] = await preparedQuery<SessionRow>(
        this.users.manager.connection,
        SESSION_USER_SQL,
        [id],
      );
      return row ?? null;
    });
  }

  /**
   * Raises the user's token version by one, which ends every session token issued before;
   * returns the user as it is afterwards, for a fresh token. `manager`: inside the
   * caller's transaction. Throws AppError USER_NOT_FOUND (404).
   */
  async bumpTokenVersion(id: string, manager?: EntityManager): Promise<User> {
    const m = manager ?? this.dataSource.manager;
    await m.query(BUMP_TOKEN_VERSION_SQL, [id]);
    this.sessions.forget(id);
    const user = await m.findOneBy(User, { id });
    if (!user) throw new AppError(UsersErrorCode.USER_NOT_FOUND, 'User not found');
    return user;
  }

  /**
   * Records, inside the caller's transaction `m`, that user `id`'s credentials changed now
   * (`credentialsChangedAt`): mailed links issued before are refused from then on.
   */
  async markCredentialsChanged(id: string, m: EntityManager): Promise<void> {
    await m.query(MARK_CREDENTIALS_CHANGED_SQL, [id]);
  }

  /** Clears user `id`'s stored preferences inside `m` (every field back to its default). */
  async clearPreferences(id: string, m: EntityManager): Promise<void> {
    await m.query(CLEAR_PREFERENCES_SQL, [id]);
    this.sessions.forget(id);
  }

  /**
   * Stores a new bcrypt hash as the user's password (the caller checked the old one, or a reset
   * link); null removes the password (an unproven one, when a social identity takes over).
   */
  async setPasswordHash(
    id: string,
    passwordHash: string | null,
    manager?: EntityManager,
  ): Promise<void> {
    await (manager ?? this.dataSource.manager).update(User, { id }, { password: passwordHash });
  }

  findByEmail(email: string): Promise<User | null> {
    return this.users.findOneBy({ email: email.trim().toLowerCase() });
  }

  /** The user linked to the OAuth identity `provider` + `providerAccountId`, or null. */
  findByAccount(provider: string, providerAccountId: string): Promise<User | null> {
    return this.users
      .createQueryBuilder('u')
      .innerJoin(Account, 'a', 'a.userId = u.id')
      .where('a.provider = :provider AND a.providerAccountId = :providerAccountId', {
        provider,
        providerAccountId,
      })
      .getOne();
  }

  /**
   * Links the OAuth identity to `userId` (an `accounts` row) unless it is linked already, and
   * returns the identity's user afterwards: the earlier one when two logins race. Throws
   * USER_NOT_FOUND when that user is gone.
   */
  async linkAccount(userId: string, provider: string, providerAccountId: string): Promise<User> {
    await this.dataSource.query(LINK_ACCOUNT_SQL, [userId, provider, providerAccountId]);
    const user = await this.findByAccount(provider, providerAccountId);
    if (!user) throw new AppError(UsersErrorCode.USER_NOT_FOUND, 'User not found');
    return user;
  }

  /** The user whose stored payment customer id is `customerId`, or null. */
  findByPaymentCustomerId(customerId: string, manager?: EntityManager): Promise<User | null> {
    return (manager ?? this.dataSource.manager).findOneBy(User, { paymentCustomerId: customerId });
  }

  /**
   * Stores `customerId` as the user's payment customer unless one is already stored; returns the
   * id stored afterwards (the earlier one when two requests race). Throws USER_NOT_FOUND.
   */
  async linkPaymentCustomer(
    userId: string,
    customerId: string,
    manager?: EntityManager,
  ): Promise<string> {
    const m = manager ?? this.dataSource.manager;
    await m.query(SET_PAYMENT_CUSTOMER_SQL, [userId, customerId]);
    const user = await m.findOneBy(User, { id: userId });
    if (!user) throw new AppError(UsersErrorCode.USER_NOT_FOUND, 'User not found');
    return user.paymentCustomerId ?? customerId;
  }

  /**
   * Sets the user's plan (from their subscriptions); a no-op for an unknown id. The session row
   * carries the plan: this process drops it at once, the others when the `users` trigger tells
   * them at commit.
   */
  async setPlan(userId: string, plan: Plan, manager?: EntityManager): Promise<void> {
    await (manager ?? this.dataSource.manager).update(User, { id: userId }, { plan });
    this.sessions.forget(userId);
  }

  /** Users, newest first, keyset-paginated (admin list); with `q`, those whose email or name holds it. */
  async list(
    limit?: number,
    cursor?: string,
    q?: string,
  ): Promise<{ data: User[]; nextCursor: string | null }> {
    const size = pageSize(limit);
    const qb = this.users
      .createQueryBuilder('u')
      .orderBy('u.createdAt', 'DESC')
      .addOrderBy('u.id', 'DESC')
      .take(size + 1);
    if (q?.trim()) {
      // A literal part: LIKE's wildcards and escape character in it match themselves.
      const part = `%${q.trim().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
      qb.andWhere('(u.email ILIKE :part OR u.name ILIKE :part)', { part });
    }
    if (cursor) {
      const pos = decodeCursor(cursor);
      qb.andWhere('(u.createdAt, u.id) < (:at, :id)', pos);
    }
    return toPage(await qb.getMany(), size, (u) => u.createdAt);
  }

  /**
   * Admin update; a `credits` change is one ADJUSTMENT entry in the same transaction, described
   * by `reason` when given.
   */
  async update(id: string, dto: UpdateUserDto): Promise<User> {
    const updated = await this.dataSource.transaction(async (m) => {
      const { credits, reason, ...fields } = dto;
      const before = await this.lockExisting(m, id);
      if (Object.keys(fields).length) await m.update(User, { id }, fields);
      // Audited in the same transaction: the rows exist exactly when the change does.
      for (const field of ['role', 'plan'] as const) {
        if (fields[field] === undefined || fields[field] === before[field]) continue;
        await this.audit.record(m, {
          action: `user.${field}.change`,
          targetType: 'user',
          targetId: id,
          details: { from: before[field], to: fields[field] },
        });
      }
      if (credits !== undefined && credits !== before.credits) {
        const why = reason ?? 'Balance set by an administrator';
        await this.credits.adjustTo(id, credits, why, m);
        await this.audit.record(m, {
          action: 'user.credits.adjust',
          targetType: 'user',
          targetId: id,
          details: { from: before.credits, to: credits, ...(reason ? { reason } : {}) },
        });
      }
      return m.findOneByOrFail(User, { id });
    });
    this.sessions.forget(id);
    return updated;
  }

  /** Updates the session user's own name and avatar only (spec Authentication 11). */
  async updateProfile(id: string, dto: UpdateProfileDto): Promise<User> {
    if (Object.keys(dto).length) await this.users.update({ id }, dto);
    this.sessions.forget(id);
    return this.get(id);
  }

  /**
   * Deletes the user; their chats, messages, accounts and ledger go with them (cascade), and so
   * do their uploads: the records in the same transaction, the stored files once it has
   * committed (best effort: a file that cannot be removed is logged, the user is deleted
   * anyway). Throws AppError USER_NOT_FOUND (404).
   */
  async remove(id: string): Promise<void> {
    const filenames = await this.dataSource.transaction(async (m) => {
      // The row lock makes a concurrent upload wait and then fail its foreign key, so every
      // upload of this user is in the list below (or removed by the failed upload itself).
      await this.lockExisting(m, id);
      const names = await this.uploads.deleteRecordsOf(id, m);
      await m.delete(User, { id });
      return names;
    });
    this.sessions.forget(id);
    await this.uploads.removeStored(filenames);
  }

  private async lockExisting(m: EntityManager, id: string): Promise<User> {
    const found = await m.findOne(User, { where: { id }, lock: { mode: 'pessimistic_write' } });
    if (!found) throw new AppError(UsersErrorCode.USER_NOT_FOUND, 'User not found');
    return found;
  }
}
