import { expect, test } from '@playwright/test';
import { newEmail, newestMailTo, PASSWORD, seriousViolations, signUpVerified } from './support';

const NEW_PASSWORD = 'staple battery horse correct';

/**
 * Forgot password from the sign-in page, the mailed reset link, a new password: the old one is
 * refused and the new one signs in.
 */
test('reset a forgotten password by the mailed link', async ({ page }) => {
  const email = newEmail('reset');
  await signUpVerified(page, email);
  await page.context().clearCookies();

  await page.goto('/en/auth/signin');
  await page.getByRole('link', { name: 'Forgot your password?' }).click();
  await expect(
    page.getByRole('heading', { name: 'Forgot your password?', level: 1 }),
  ).toBeVisible();
  expect(await seriousViolations(page)).toEqual([]);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Email').press('Enter');
  await expect(page.getByRole('status')).toContainText('reset link is on its way');

  // The reset mail follows the verification mail: the newest mail to the address, once it is that.
  let mail = '';
  await expect.poll(async () => (mail = await newestMailTo(email))).toContain('reset-password');
  const token = /reset-password\?token=([\w%-]+)/.exec(mail)?.[1];
  expect(token).toBeDefined();
  await page.goto(`/en/auth/reset-password?token=${token}`);
  await expect(
    page.getByRole('heading', { name: 'Choose a new password', level: 1 }),
  ).toBeVisible();
  expect(await seriousViolations(page)).toEqual([]);
  await page.getByRole('textbox', { name: 'New password' }).fill(NEW_PASSWORD);
  await page.getByRole('button', { name: 'Set the new password' }).click();
  await expect(page.getByRole('status')).toContainText('Your password is changed');

  const old = await page.request.post('/api/auth/login', { data: { email, password: PASSWORD } });
  expect(old.status()).toBe(401);
  await page.getByRole('link', { name: 'Sign in' }).click();
  await page.getByLabel('Email').fill(email);
  await page.getByRole('textbox', { name: 'Password' }).fill(NEW_PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page).toHaveURL(/\/en\/dashboard$/);
});

/** The Chinese pages have their own texts; a link without a token says so. */
test('the reset pages in Chinese', async ({ page }) => {
  await page.goto('/zh/auth/forgot-password');
  await expect(page.getByRole('heading', { name: '忘记密码？', level: 1 })).toBeVisible();
  await page.goto('/zh/auth/reset-password');
  await expect(page.getByRole('heading', { name: '设置新密码', level: 1 })).toBeVisible();
  await expect(page.getByRole('alert')).toBeVisible();
});
