import type { Locale } from '../../i18n/locale';
import { LOCALES } from '../../i18n/locale';
import type { User } from '../../users/user.entity';

/**
 * The language of a mail to `user`: their stored preference (the mail is read later, maybe
 * elsewhere), else the language of the request that caused it.
 */
export function mailLocale(user: Pick<User, 'preferences'>, requestLocale: Locale): Locale {
  const stored = user.preferences?.locale;
  return stored && (LOCALES as readonly string[]).includes(stored) ? stored : requestLocale;
}
