import { expect, test } from '@playwright/test';
import { Secret, TOTP } from 'otpauth';
import { newEmail, PASSWORD, signUpByApi } from './support';

/** A login that answers `mfaRequired` gets the code step; a recovery code signs in. */
test('sign in with a second factor', async ({ page }) => {
  const email = newEmail('mfa');
  await signUpByApi(page, email);
  // Two-factor on, through the API with the session cookie of the page's context.
  const setup = await page.request.post('/api/auth/2fa/setup');
  expect(setup.status()).toBe(200);
  // The authenticator app, played by the library the service uses.
  const code = TOTP.generate({ secret: Secret.fromBase32((await setup.json()).secret) });
  const enabled = await page.request.post('/api/auth/2fa/enable', { data: { code } });
  expect(enabled.status()).toBe(200);
  const [recovery] = (await enabled.json()).recoveryCodes as string[];

  await page.context().clearCookies();
  await page.goto('/en/auth/signin');
  await page.getByLabel('Email').fill(email);
  await page.getByRole('textbox', { name: 'Password' }).fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('heading', { name: 'Two-factor code', level: 1 })).toBeVisible();
  await page.getByLabel(/Code from your authenticator app/).fill(recovery);
  await page.getByRole('button', { name: 'Verify' }).click();
  await expect(page).toHaveURL(/\/en\/dashboard$/);
  await expect(page.getByRole('heading', { name: 'Dashboard', level: 1 })).toBeVisible();
});

/** Ending another session from the settings: that session's cookie is refused at once. */
test('end another session from the settings', async ({ page, playwright }) => {
  const email = newEmail('sessions');
  await signUpByApi(page, email);
  const other = await playwright.request.newContext({
    baseURL: process.env.CONSOLE_URL,
    userAgent: 'Other device',
  });
  const login = await other.post('/api/auth/login', { data: { email, password: PASSWORD } });
  expect(login.status()).toBe(200);
  expect((await other.get('/api/auth/session')).status()).toBe(200);
  expect((await (await other.get('/api/auth/session')).json()).user.email).toBe(email);

  await page.goto('/en/dashboard/settings');
  await expect(page.getByTestId('session-row')).toHaveCount(2);
  const row = page.getByRole('row', { name: /Other device/ });
  await row.getByRole('button', { name: /End session/ }).click();
  await expect(row).toContainText('Ended');
  expect((await (await other.get('/api/auth/session')).json()).user).toBeUndefined();
  await other.dispose();
});
