import { expect, test } from '@playwright/test';
import { newEmail, screenshot, seriousViolations, signUpByApi } from './support';

/** axe-core finds no serious or critical violation on any page of the console, one test each. */
const SIGNED_OUT = [
  '/en/auth/signin',
  '/en/auth/signup',
  '/en/auth/verify-email?token=x',
  '/en/unauthorized',
  '/zh/auth/signin',
];
const SIGNED_IN = ['/en/dashboard', '/en/dashboard/chat', '/en/dashboard/settings'];

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
