import { expect, test } from '@playwright/test';
import { newEmail, screenshot, signUpByApi } from './support';

test('switch the language to Chinese and back', async ({ page }) => {
  await page.goto('/en/auth/signin');
  await expect(page.getByRole('heading', { name: 'Sign in', level: 1 })).toBeVisible();
  await page.getByRole('link', { name: '中文' }).click();
  await expect(page).toHaveURL(/\/zh\/auth\/signin$/);
  await expect(page.getByRole('heading', { name: '登录', level: 1 })).toBeVisible();
  await expect(page.getByLabel('邮箱')).toBeVisible();
  await expect(page.locator('html')).toHaveAttribute('lang', 'zh-CN');
  await screenshot(page, 'signin-zh');
  await page.getByRole('link', { name: 'English' }).click();
  await expect(page).toHaveURL(/\/en\/auth\/signin$/);
  await expect(page.getByRole('heading', { name: 'Sign in', level: 1 })).toBeVisible();
});

test('a signed-in page in Chinese', async ({ page }) => {
  await signUpByApi(page, newEmail('zh'));
  await page.goto('/zh/dashboard');
  await expect(page.getByRole('heading', { name: '仪表盘', level: 1 })).toBeVisible();
  await expect(page.getByTestId('balance')).toHaveText('0 积分');
});

test('the service sends the signed-out visitor of /dashboard to sign in, and back after', async ({
  page,
}) => {
  const email = newEmail('back');
  await signUpByApi(page, email);
  await page.context().clearCookies();
  await page.goto('/en/dashboard/settings');
  await expect(page).toHaveURL(/\/en\/auth\/signin\?callbackUrl=%2Fen%2Fdashboard%2Fsettings$/);
  await page.getByLabel('Email').fill(email);
  await page.getByRole('textbox', { name: 'Password' }).fill('correct horse battery');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page).toHaveURL(/\/en\/dashboard\/settings$/);
  await expect(page.getByRole('heading', { name: 'Settings', level: 1 })).toBeVisible();
});

test('a member without ADMIN opening /en/admin/users lands on /unauthorized', async ({ page }) => {
  await signUpByApi(page, newEmail('member'));
  await page.goto('/en/admin/users');
  await expect(page).toHaveURL(/\/en\/unauthorized$/);
  await expect(page.getByRole('heading', { name: 'Not allowed', level: 1 })).toBeVisible();
});

test('an unknown locale is a 404 before the console loads', async ({ page }) => {
  const res = await page.goto('/fr/dashboard');
  expect(res?.status()).toBe(404);
});
