import { expect, test } from '@playwright/test';
import { newEmail, screenshot, signUpVerified } from './support';

/** API keys in the settings: created with its secret shown once, revoked, and then refused. */
test('create an API key, revoke it, and the revoked key gets 401', async ({ page, playwright }) => {
  await signUpVerified(page, newEmail('keys'));
  await page.goto('/en/dashboard/settings');
  await page.getByLabel('Key name').fill('CI script');
  await page.getByRole('checkbox', { name: 'credits:read' }).check();
  await page.getByRole('button', { name: 'Create key' }).click();
  const secret = (await page.getByTestId('new-key').textContent())!.trim();
  expect(secret).toMatch(/^sk-\w{20,}$/);
  const row = page.getByRole('row', { name: /CI script/ });
  await expect(row).toContainText('ai, chats:read, credits:read');
  await expect(page.getByTestId('session-row')).toHaveCount(1);
  await screenshot(page, 'settings');

  // A separate client: only the key, no cookie.
  const client = await playwright.request.newContext({ baseURL: process.env.CONSOLE_URL });
  const auth = { Authorization: `Bearer ${secret}` };
  expect((await client.get('/api/credits', { headers: auth })).status()).toBe(200);

  await page.getByRole('button', { name: 'Revoke key CI script' }).click();
  await expect(row).toHaveCount(0);
  const refused = await client.get('/api/credits', { headers: auth });
  expect(refused.status()).toBe(401);
  expect((await refused.json()).code).toBe('INVALID_API_KEY');
  // The secret is not shown again: the list never carries it.
  await page.reload();
  await expect(page.getByText(secret)).toHaveCount(0);
  await client.dispose();
});
