import AxeBuilder from '@axe-core/playwright';
import { type Browser, expect, type Page } from '@playwright/test';
import { randomBytes } from 'node:crypto';
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { simpleParser } from 'mailparser';
import { Client } from 'pg';

export const PASSWORD = 'correct horse battery';

/** A fresh address at example.com. */
export const newEmail = (tag: string) => `${tag}-${randomBytes(4).toString('hex')}@example.com`;

/**
 * The newest mail to `to` in MAIL_DIR (`.eml` files, written by the service's mail job),
 * polled until it arrives: its text body.
 */
export async function newestMailTo(to: string): Promise<string> {
  const dir = process.env.MAIL_DIR!;
  let text = '';
  await expect
    .poll(async () => {
      const names = await readdir(dir).catch(() => [] as string[]);
      const files = await Promise.all(
        names
          .filter((n) => n.endsWith('.eml') || n.endsWith('.txt'))
          .map(async (n) => ({ n, t: (await stat(join(dir, n))).mtimeMs })),
      );
      for (const { n } of files.sort((a, b) => b.t - a.t)) {
        const mail = await simpleParser(await readFile(join(dir, n)));
        if (mail.to && JSON.stringify(mail.to).includes(to)) {
          text = mail.text ?? '';
          return true;
        }
      }
      return false;
    })
    .toBe(true);
  return text;
}

/** Signs up `email` through the API in the page's browser context (the session cookie is kept). */
export async function signUpByApi(page: Page, email: string): Promise<void> {
  const res = await page.request.post('/api/auth/signup', { data: { email, password: PASSWORD } });
  expect(res.status()).toBe(201);
}

/** The page's serious and critical accessibility violations (axe-core), by rule id. */
export async function seriousViolations(page: Page): Promise<string[]> {
  const { violations } = await new AxeBuilder({ page }).analyze();
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

/** A screenshot of the page for docs/console/ (the documentation shows them). */
export async function screenshot(page: Page, name: string): Promise<void> {
  const docs = fileURLToPath(new URL('../../docs/console/', import.meta.url));
  await page.screenshot({ path: join(docs, `${name}.png`) });
}

/** Signs up `email` and verifies it by its mailed token (the sign-up credits arrive). */
export async function signUpVerified(page: Page, email: string): Promise<void> {
  await signUpByApi(page, email);
  const token = /verify-email\?token=([\w%-]+)/.exec(await newestMailTo(email))?.[1];
  expect(token).toBeDefined();
  const res = await page.request.post('/api/auth/verify-email', {
    data: { token: decodeURIComponent(token!) },
  });
  expect(res.status()).toBe(200);
}

/**
 * Signs up and verifies `email` in a fresh browser context of `browser` (its own cookies) and
 * returns that context's page; with an address of ADMIN_EMAILS the user is an administrator.
 */
export async function pageOf(browser: Browser, email: string): Promise<Page> {
  const context = await browser.newContext({ baseURL: process.env.CONSOLE_URL, locale: 'en-US' });
  const page = await context.newPage();
  await signUpVerified(page, email);
  return page;
}

/** Runs `sql` on the suite's database (CONSOLE_DATABASE_URL, set by the global setup). */
export async function sql<T = Record<string, unknown>>(text: string, params: unknown[] = []) {
  const client = new Client({ connectionString: process.env.CONSOLE_DATABASE_URL });
  await client.connect();
  try {
    return (await client.query(text, params)).rows as T[];
  } finally {
    await client.end();
  }
}

/** The signed-in user's balance by the API, in `page`'s browser context. */
export async function balanceOf(page: Page): Promise<number> {
  const res = await page.request.get('/api/credits');
  expect(res.status()).toBe(200);
  return (await res.json()).balance;
}
