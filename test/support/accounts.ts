import { simpleParser } from 'mailparser';
import { DataSource } from 'typeorm';
import { EmailVerificationService } from '../../src/auth/account/email-verification.service';
import { DEFAULT_API_SCOPES } from '../../src/common/auth/api-scopes';
import { hashKey, newKeySecret, prefixOf } from '../../src/keys/key-secret';
import { randomBytes } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { SmtpTestServer, ReceivedMail } from '../servers/smtp-server';
import { waitFor } from './wait';
import { PASSWORD, type TestUser } from './factories';
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
export function verificationMail(
  smtp: SmtpTestServer,
  email: string,
  n = 1,
): Promise<ReceivedMail> {
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

/** A mail found as an `.eml` file; `token` is its link's. */
export interface MailFile {
  subject: string;
  text: string;
  html: string;
  link: string;
  token: string;
}

/**
 * The newest `.eml` file in `dir` (MAIL_DIR of an app without SMTP_URL: development's file
 * mail) for `email` whose subject matches, parsed. Throws when none arrives in 30 s.
 */
export async function mailFileIn(
  dir: string,
  email: string,
  subject = /Confirm your email|验证您的邮箱/,
): Promise<MailFile> {
  let found: MailFile | undefined;
  const look = async () => {
    const names = await readdir(dir).catch(() => [] as string[]);
    for (const name of names
      .filter((n) => n.endsWith('.eml'))
      .sort()
      .reverse()) {
      const parsed = await simpleParser(await readFile(join(dir, name)));
      const to = [parsed.to ?? []].flat().flatMap((a) => a.value.map((v) => v.address));
      if (!to.includes(email.toLowerCase()) || !subject.test(parsed.subject ?? '')) continue;
      const link = /https?:\/\/\S+/.exec(parsed.text ?? '')?.[0] ?? '';
      found = {
        subject: parsed.subject ?? '',
        text: parsed.text ?? '',
        html: typeof parsed.html === 'string' ? parsed.html : '',
        link,
        token: link ? (new URL(link).searchParams.get('token') ?? '') : '',
      };
      return true;
    }
    return false;
  };
  if (!(await waitFor(look, 30_000))) throw new Error(`no mail file for ${email} in ${dir}`);
  return found!;
}

/** `mailFileIn` for an in-process test app. */
export function mailFile(t: TestApp, email: string, subject?: RegExp): Promise<MailFile> {
  return mailFileIn(t.mailDir, email, subject);
}

/**
 * Verifies `email` on a spawned service at `base` (its mails are files in `mailDir`): follows
 * the link of the verification mail, over HTTP, as a user would.
 */
export async function verifyInMailDir(base: string, mailDir: string, email: string): Promise<void> {
  const { token } = await mailFileIn(mailDir, email);
  const res = await fetch(`${base}/api/auth/verify-email`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ token }),
  });
  if (res.status !== 200) throw new Error(`verify-email ${res.status}: ${await res.text()}`);
}

/** Follows the verification link of `email`'s `.eml` file (an app without SMTP_URL). */
export async function verifyFromMailFile(t: TestApp, email: string): Promise<void> {
  const { token } = await mailFile(t, email);
  await t.http.post('/api/auth/verify-email').send({ token }).expect(200);
}

/**
 * A friend signed up through the API with a referral `code` (an app without SMTP_URL) who, unless
 * `verified` is false, followed the mailed verification link.
 */
export async function signUpReferred(t: TestApp, code: string, verified = true): Promise<TestUser> {
  const u = await signUp(t, uniqueEmail('friend'), { referralCode: code });
  if (verified) await verifyFromMailFile(t, u.email);
  return { user: u.user as unknown as TestUser['user'], token: u.token, auth: u.auth };
}

/**
 * Verifies user `id` through the service a followed link calls (for accounts no link was mailed
 * to, such as those an administrator created). Returns whether this call verified it.
 */
export function verifyUser(t: TestApp, id: string): Promise<boolean> {
  const verification = t.app.get(EmailVerificationService);
  return t.app.get(DataSource).transaction((m) => verification.markVerified(id, m));
}

/**
 * An API key of user `id` written straight into `api_keys`, as one made before keys needed a
 * verified address (the API refuses unverified accounts now); returns its `Authorization`.
 */
export async function plantKey(t: TestApp, id: string): Promise<{ Authorization: string }> {
  const key = newKeySecret();
  await t.db.query(
    `INSERT INTO api_keys ("userId", name, prefix, "keyHash", scopes) VALUES ($1, 'planted', $2, $3, $4)`,
    [id, prefixOf(key), hashKey(key), DEFAULT_API_SCOPES],
  );
  return { Authorization: `Bearer ${key}` };
}
