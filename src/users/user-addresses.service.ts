import { Inject, Injectable } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { usersConfig } from './users.config';
import { InjectRepository } from '@nestjs/typeorm';
import type { EntityManager, Repository } from 'typeorm';
import { asEmailTaken } from './email-taken';
import { SessionCache } from './session-cache';
import { type Role, User } from './user.entity';
import { SET_EMAIL_SQL, SET_ROLE_SQL, VERIFY_EMAIL_SQL } from './users.sql';
import type { SessionRow } from './users.types';

/**
 * A user's email address and what a proven one unlocks: verification (and the ADMIN role of
 * ADMIN_EMAILS, never for an unproven address) and moving to a new, confirmed address.
 */
@Injectable()
export class UserAddresses {
  constructor(
    @InjectRepository(User) private readonly users: Repository<User>,
    @Inject(usersConfig.KEY) private readonly settings: ConfigType<typeof usersConfig>,
    private readonly sessions: SessionCache<SessionRow>,
  ) {}

  /**
   * Records that the owner proved the address, inside the caller's transaction `m`; an address in
   * ADMIN_EMAILS gets role ADMIN at that moment. Returns the user afterwards when this call
   * verified it, null when it was verified already (or is gone), so the caller grants what
   * verification unlocks exactly once.
   */
  async markEmailVerified(id: string, m: EntityManager): Promise<User | null> {
    const admins = this.settings.adminEmails;
    const [rows] = (await m.query(VERIFY_EMAIL_SQL, [id, admins])) as [{ id: string }[], number];
    if (!rows.length) return null;
    this.sessions.forget(id);
    return m.findOneByOrFail(User, { id });
  }

  /**
   * ADMIN_EMAILS get role ADMIN at every login, but only for a verified address: whoever signs
   * up first with an admin address proves nothing until the mailed link is followed. Returns the
   * (possibly promoted) user.
   */
  async applyAdminEmails(user: User): Promise<User> {
    const admins = this.settings.adminEmails;
    if (user.role === 'ADMIN' || !user.emailVerifiedAt || !admins.includes(user.email)) return user;
    await this.users.update({ id: user.id }, { role: 'ADMIN' });
    this.sessions.forget(user.id);
    return this.users.findOneByOrFail({ id: user.id });
  }

  /**
   * The role after an account moved from `before.email` to `email` (inside `m`, after the move):
   * an ADMIN whose old address is in ADMIN_EMAILS held the role by that address and loses it
   * when the new one is not in the list; a new address in the list (proven by the move's link)
   * gains it. Returns `{from, to}` when the role changed, else null; the caller audits it.
   */
  async roleAfterMove(
    before: Pick<User, 'id' | 'email' | 'role'>,
    email: string,
    m: EntityManager,
  ): Promise<{ from: Role; to: Role } | null> {
    const admins = this.settings.adminEmails;
    const listed = admins.includes(email.trim().toLowerCase());
    let to: Role = before.role;
    if (listed) to = 'ADMIN';
    else if (before.role === 'ADMIN' && admins.includes(before.email)) to = 'USER';
    if (to === before.role) return null;
    await m.query(SET_ROLE_SQL, [before.id, to]);
    this.sessions.forget(before.id);
    return { from: before.role, to };
  }

  /**
   * Moves the account to `email` (proven by the caller's link) in `m`; the verified state is the
   * caller's to set. Throws AppError EMAIL_TAKEN (409) when another account holds the address
   * (the caller's transaction is then aborted).
   */
  async changeEmail(id: string, email: string, m: EntityManager): Promise<void> {
    try {
      await m.query(SET_EMAIL_SQL, [id, email.trim().toLowerCase()]);
    } catch (err) {
      throw asEmailTaken(err);
    }
    this.sessions.forget(id);
  }
}
