import { expect, test } from '@playwright/test';
import { Secret, TOTP } from 'otpauth';
import { newEmail, newestMailTo, PASSWORD, signUpVerified } from './support';

/** Two-factor from the settings: the QR code and secret, a code turns it on, recovery codes. */
test('set up two-factor with the QR code and get the recovery codes', async ({ page }) => {
  await signUpVerified(page, newEmail('totp'));
  await page.goto('/en/dashboard/settings');
  await expect(page.getByTestId('2fa-state')).toHaveText('Two-factor authentication is off.');
  await page.getByRole('button', { name: 'Set up two-factor authentication' }).click();
  await expect(page.getByRole('img', { name: 'QR code for your authenticator app' })).toBeVisible();
  const secret = (await page.getByTestId('totp-secret').textContent())!.trim();
  const code = TOTP.generate({ secret: Secret.fromBase32(secret) });
  await page.getByLabel('Code from your authenticator app').fill(code);
  await page.getByRole('button', { name: 'Turn on' }).click();
  await expect(page.getByTestId('recovery-codes')).toBeVisible();
  const codes = (await page.getByTestId('recovery-codes').textContent())!.trim().split(/\s+/);
  expect(codes).toHaveLength(10);
  await expect(page.getByTestId('2fa-state')).toHaveText(
    'Two-factor authentication is on; 10 recovery codes left.',
  );
});

/** Profile, password and email: the name is kept, the new password signs in, a link is mailed. */
test('change the name, the password and the email address', async ({ page, playwright }) => {
  const email = newEmail('profile');
  await signUpVerified(page, email);
  await page.goto('/en/dashboard/settings');
  await page.getByLabel('Name', { exact: true }).fill('Grace Hopper');
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByText('Saved.')).toBeVisible();

  await page.getByLabel('Current password').fill(PASSWORD);
  await page.getByLabel('New password').fill('a much longer passphrase');
  await page.getByRole('button', { name: 'Change password' }).click();
  await expect(page.getByText('Password changed.', { exact: false })).toBeVisible();
  const other = await playwright.request.newContext({ baseURL: process.env.CONSOLE_URL });
  const login = await other.post('/api/auth/login', {
    data: { email, password: 'a much longer passphrase' },
  });
  expect(login.status()).toBe(200);
  expect((await login.json()).user.name).toBe('Grace Hopper');
  await other.dispose();

  const next = newEmail('moved');
  await page.getByLabel('New email address').fill(next);
  await page.getByLabel('Password', { exact: true }).fill('a much longer passphrase');
  await page.getByRole('button', { name: 'Change email' }).click();
  await expect(page.getByText(`We sent a link to ${next}`, { exact: false })).toBeVisible();
  const token = /confirm-email\?token=([\w%-]+)/.exec(await newestMailTo(next))?.[1];
  await page.goto(`/en/auth/confirm-email?token=${token}`);
  await page.getByRole('button', { name: 'Confirm the new address' }).click();
  await expect(page.getByText('Your account now uses the new address.')).toBeVisible();
  expect((await (await page.request.get('/api/auth/session')).json()).user.email).toBe(next);
});
