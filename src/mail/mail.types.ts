import type { Locale } from '../i18n/locale';

/** The mails the service sends; each has an en and a zh text (mail-templates.ts). */
export type MailTemplate =
  | 'verify-email'
  | 'password-reset'
  | 'password-changed'
  | 'email-change-confirm'
  | 'email-change-notice';

/** What a template is filled with. `link` is the page the mail's button opens, when it has one. */
export interface MailParams {
  /** The recipient's display name, when known. */
  name?: string | null;
  link?: string;
  /** Email change: the address the account moves to. */
  newEmail?: string;
}

/** One mail to send: what `MailService.send` is asked for. */
export interface MailRequest {
  to: string;
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
