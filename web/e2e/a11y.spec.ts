import { expect, test } from '@playwright/test';
import { ADMINS } from './global-setup';
import { newEmail, pageOf, screenshot, seriousViolations, signUpByApi } from './support';

/** axe-core finds no serious or critical violation on any page of the console, one test each. */
const SIGNED_OUT = [
  '/en/auth/signin',
  '/en/auth/signup',
  '/en/auth/verify-email?token=x',
  '/en/auth/forgot-password',
  '/en/auth/reset-password?token=x',
  '/en/unauthorized',
  '/zh/auth/signin',
];
const SIGNED_IN = [
  '/en/dashboard',
  '/en/dashboard/chat',
  '/en/dashboard/settings',
  '/en/dashboard/billing',
  '/en/dashboard/teams',
  '/en/dashboard/budgets',
  '/zh/dashboard/billing',
];
const ADMIN_PAGES = [
  'users',
  'payments',
  'redemption',
  'upstreams',
  'models',
  'prices',
  'audit',
  'usage',
];

for (const path of SIGNED_OUT) {
  test(`no serious accessibility violation on ${path}`, async ({ page }) => {
    await page.goto(path);
    await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
    expect(await seriousViolations(page)).toEqual([]);
    if (path === '/en/auth/signin') await screenshot(page, 'signin');
  });
}

for (const path of SIGNED_IN) {
  test(`no serious accessibility violation on ${path} (signed in)`, async ({ page }) => {
    await signUpByApi(page, newEmail('axe'));
    await page.goto(path);
    await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
    await expect(page.getByRole('status')).toHaveCount(0);
    expect(await seriousViolations(page)).toEqual([]);
  });
}

/** The admin pages, one administrator for all (ADMIN_EMAILS), in English and some in Chinese. */
test('no serious accessibility violation on the admin pages', async ({ browser }) => {
  // Eleven pages, each loaded and checked in turn: three times a test's usual bound.
  test.slow();
  const admin = await pageOf(browser, ADMINS[3]);
  const chinese = ['/zh/admin/users', '/zh/admin/redemption', '/zh/admin/prices'];
  for (const path of [...ADMIN_PAGES.map((p) => `/en/admin/${p}`), ...chinese]) {
    await admin.goto(path);
    await expect(admin.getByRole('heading', { level: 1 })).toBeVisible();
    await expect(admin.getByRole('status')).toHaveCount(0);
    expect(await seriousViolations(admin), path).toEqual([]);
    if (path === '/en/admin/users') await screenshot(admin, 'admin-users');
  }
  await admin.context().close();
});
