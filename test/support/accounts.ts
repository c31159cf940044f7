import { simpleParser } from 'mailparser';
import { DataSource } from 'typeorm';
import { EmailVerificationService } from '../../src/auth/account/email-verification.service';
import { randomBytes } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { SmtpTestServer, ReceivedMail } from '../servers/smtp-server';
import { waitFor } from './wait';
import { PASSWORD } from './factories';
import type { TestApp } from './test-app';

/** A unique address for one test. */
export const uniqueEmail = (prefix = 'user') =>
  `${prefix}-${randomBytes(5).toString('hex')}@example.com`;

export interface SignedUp {
  id: string;
  email: string;
  token: string;
  auth: { Authorization: string };
  /** The answer's `user`. */
  user: Record<string, unknown>;
}

/** POST /api/auth/signup with the factory password; `headers` e.g. `Accept-Language`. */
export async function signUp(
  t: TestApp,
  email = uniqueEmail(),
  opts: { headers?: Record<string, string>; referralCode?: string } = {},
): Promise<SignedUp> {
  const res = await t.http
    .post('/api/auth/signup')
    .set(opts.headers ?? {})
    .send({ email, password: PASSWORD, name: 'Ada', referralCode: opts.referralCode })
    .expect(201);
  return {
    id: res.body.user.id,
    email,
    token: res.body.accessToken,
    auth: { Authorization: `Bearer ${res.body.accessToken}` },
    user: res.body.user,
  };
}

/** The verification mail of `email`, once it arrived at `smtp`. */
export function verificationMail(smtp: SmtpTestServer, email: string, n = 1): Promise<ReceivedMail> {
  return smtp.waitForMail(email, { subject: /Confirm your email|验证您的邮箱/, n });
}

/** Follows a mail's link the way its page does: POSTs the link's token to `route`. */
export function followLink(t: TestApp, mail: ReceivedMail, route: string) {
  return t.http.post(route).send({ token: mail.token });
}

/** Signs up and follows the verification link from the mail. */
export async function signUpVerified(
  t: TestApp,
  smtp: SmtpTestServer,
  email = uniqueEmail(),
): Promise<SignedUp> {
  const u = await signUp(t, email);
  await followLink(t, await verificationMail(smtp, email), '/api/auth/verify-email').expect(200);
  return u;
}

/**
 * The newest `.eml` file the app wrote for `email` (no SMTP_URL: development's file mail),
 * parsed; its `token` is the link's. Throws when none arrives.
 */
export async function mailFile(
  t: TestApp,
  email: string,
  subject = /Confirm your email|验证您的邮箱/,
): Promise<{ subject: string; text: string; link: string; token: string }> {
  let found: { subject: string; text: string; link: string; token: string } | undefined;
  const look = async () => {
    const names = await readdir(t.mailDir).catch(() => [] as string[]);
    for (const name of names.sort().reverse()) {
      const parsed = await simpleParser(await readFile(join(t.mailDir, name)));
      const to = [parsed.to ?? []].flat().flatMap((a) => a.value.map((v) => v.address));
      if (!to.includes(email.toLowerCase()) || !subject.test(parsed.subject ?? '')) continue;
      const link = /https?:\/\/\S+/.exec(parsed.text ?? '')?.[0] ?? '';
      found = {
        subject: parsed.subject ?? '',
        text: parsed.text ?? '',
        link,
        token: link ? (new URL(link).searchParams.get('token') ?? '') : '',
      };
      return true;
    }
    return false;
  };
  if (!(await waitFor(look, 15_000))) throw new Error(`no mail file for ${email} in ${t.mailDir}`);
  return found!;
}

/** Follows the verification link of `email`'s `.eml` file (an app without SMTP_URL). */
export async function verifyFromMailFile(t: TestApp, email: string): Promise<void> {
  const { token } = await mailFile(t, email);
  await t.http.post('/api/auth/verify-email').send({ token }).expect(200);
}

/**
 * Verifies user `id` through the service a followed link calls (for accounts no link was mailed
 * to, such as those an administrator created). Returns whether this call verified it.
 */
export function verifyUser(t: TestApp, id: string): Promise<boolean> {
  const verification = t.app.get(EmailVerificationService);
  return t.app.get(DataSource).transaction((m) => verification.markVerified(id, m));
}
