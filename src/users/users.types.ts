import type { EntityManager } from 'typeorm';
import type { Locale } from '../i18n/locale';
import type { StoredPreferences } from './preferences/preferences.dto';
import type { Plan, Role, User } from './user.entity';

/** A user to create (UsersService.create). */
export interface NewUser {
  email: string;
  name?: string | null;
  avatar?: string | null;
  role?: Role;
  plan?: Plan;
  /** bcrypt hash, or null for social-only and admin-created accounts. */
  passwordHash?: string | null;
  /**
   * Runs inside the creating transaction, e.g. to record a referral or to mark a
   * provider-verified address verified; its failure undoes the whole sign-up.
   */
  afterCreate?: (user: User, m: EntityManager) => Promise<unknown>;
}

/** The session fields of a user (UsersService.findSessionUser), as the session cache keeps them. */
export type SessionRow = Pick<User, 'id' | 'email' | 'name' | 'role' | 'tokenVersion' | 'plan'> & {
  /** The stored preference `locale`, null when unset. */
  locale: Locale | null;
  /** The stored preferences, null when none yet. */
  preferences: StoredPreferences | null;
};
