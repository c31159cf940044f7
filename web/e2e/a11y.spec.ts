import { expect, test } from '@playwright/test';
import { newEmail, screenshot, seriousViolations, signUpByApi } from './support';

/** axe-core finds no serious or critical violation on any page of the console. */
const SIGNED_OUT = [
  '/en/auth/signin',
  '/en/auth/signup',
  '/en/auth/verify-email?token=x',
  '/en/unauthorized',
  '/zh/auth/signin',
];
const SIGNED_IN = [
  '/en/dashboard',
  '/en/dashboard/chat',
  '/en/dashboard/settings',
  '/zh/dashboard',
];

test('signed-out pages have no serious accessibility violation', async ({ page }) => {
  for (const path of SIGNED_OUT) {
    await page.goto(path);
    await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
    expect(await seriousViolations(page), path).toEqual([]);
  }
  await page.goto('/en/auth/signin');
  await screenshot(page, 'signin');
});

test('signed-in pages have no serious accessibility violation', async ({ page }) => {
  await signUpByApi(page, newEmail('axe'));
  for (const path of SIGNED_IN) {
    await page.goto(path);
    await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
    await expect(page.getByRole('status')).toHaveCount(0);
    expect(await seriousViolations(page), path).toEqual([]);
  }
});
