import type { Locale } from '../i18n/locale';

/** The mails the service sends; each has an en and a zh text (mail-templates.ts). */
export type MailTemplate =
  | 'verify-email'
  | 'password-reset'
  | 'password-changed'
  | 'email-change-confirm'
  | 'email-change-notice'
  | 'unproven-setup-removed'
  | 'budget-threshold'
  | 'payment-failed';

/** What a credential change or a first proof of the address removed, told in the mail. */
export interface RemovedAccess {
  /** API keys revoked. */
  keys: number;
  /** Two-factor authentication was on and is off now. */
  twoFactor: boolean;
  /** Unused mailed links (email change, verification, reset) that stopped working. */
  links: number;
  /** Chats, scheduled tasks, team memberships and preferences were deleted. */
  data: boolean;
}

/** What a template is filled with. `link` is the page the mail's button opens, when it has one. */
export interface MailParams {
  /** The recipient's display name, when known. */
  name?: string | null;
  link?: string;
  /** Email change: the address the account moves to. */
  newEmail?: string;
  /** What was removed from the account (password-changed, unproven-setup-removed). */
  removed?: RemovedAccess;
  /** budget-threshold: the budget window and how much of it is used. */
  budget?: BudgetThreshold;
  /** payment-failed: the amount due with its currency, e.g. `9.99 USD`. */
  amountDue?: string;
}

/** A soft threshold of a budget window crossed (budget-threshold). */
export interface BudgetThreshold {
  /** `user`, `key`, `team` or `member`. */
  scope: string;
  /** `day`, `week`, `month`, `hours` or `total`. */
  window: string;
  /** Percent of the limit. */
  threshold: number;
  /** Credits. */
  used: number;
  limit: number;
}

/** One mail to send: what `MailService.send` is asked for. */
export interface MailRequest {
  to: string;
  /**
   * Whether the owner of `to` proved it is theirs. A mail to an unproven address carries no text
   * a user chose (the display name is left out), so nobody can make the service mail their words
   * to any address.
   */
  toProven: boolean;
  template: MailTemplate;
  locale: Locale;
  params: MailParams;
}

/** A rendered mail, as queued: both parts are always present. */
export interface RenderedMail {
  template: MailTemplate;
  to: string;
  subject: string;
  text: string;
  html: string;
  /** Logged at info when the mail is written to a file instead of sent (development). */
  link?: string;
}
