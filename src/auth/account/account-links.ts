import type { Locale } from '../../i18n/locale';

/** The frontend pages that mailed links open; each posts the token to its API route. */
export const ACCOUNT_PAGES = {
  verify_email: 'auth/verify-email',
  reset_password: 'auth/reset-password',
  change_email: 'auth/confirm-email',
} as const;

/** `{baseUrl}/{locale}/{page}?token={token}`: the link a mail carries. */
export function accountLink(
  baseUrl: string,
  locale: Locale,
  page: keyof typeof ACCOUNT_PAGES,
  token: string,
): string {
  return `${baseUrl}/${locale}/${ACCOUNT_PAGES[page]}?token=${encodeURIComponent(token)}`;
}
