import { expect, test } from '@playwright/test';
import { readFile } from 'node:fs/promises';
import { ADMINS } from './global-setup';
import { balanceOf, newEmail, pageOf, screenshot, signUpVerified } from './support';

const REDEMPTION_ADMIN = ADMINS[7];

/**
 * An administrator makes a batch of codes and exports them (once); a user redeems one on the
 * billing page and the balance rises once, by one REDEMPTION entry; the same code again is
 * refused in the page's words; a disabled batch's codes redeem no more.
 */
test('an admin makes and exports codes, a user redeems one once', async ({ page, browser }) => {
  const admin = await pageOf(browser, REDEMPTION_ADMIN);
  const name = newEmail('batch').split('@')[0];
  await admin.goto('/en/admin/redemption');
  await expect(admin.getByRole('heading', { name: 'Redemption codes', level: 1 })).toBeVisible();
  await admin.getByLabel('Name').fill(name);
  await admin.getByLabel('Credits per use').fill('250');
  await admin.getByLabel('Number of codes').fill('2');
  // Two uses a code, one per user: the same user's second try is refused as theirs already.
  await admin.getByLabel('Uses per code').fill('2');
  await admin.getByRole('button', { name: 'Make the codes' }).click();
  await expect(admin.getByRole('status')).toHaveText(
    `Batch “${name}” made with 2 codes. Export its codes from the list.`,
  );
  const row = admin.getByRole('row', { name: new RegExp(name) });
  await expect(row).toContainText('Active');
  await expect(row).toContainText('2 uses each, once per user');

  const saved = admin.waitForEvent('download');
  await admin.getByRole('button', { name: `Export the codes of ${name}` }).click();
  const csv = await readFile((await (await saved).path())!, 'utf8');
  const [header, ...lines] = csv.trim().split(/\r?\n/);
  expect(header).toBe('code,credits,expiresAt');
  expect(lines).toHaveLength(2);
  const [first, second] = lines.map((line) => line.split(',')[0]);
  expect(first).toMatch(/^[0-9A-Z]{4}(-[0-9A-Z]{4}){4}$/);
  await expect(row).toContainText('Exported');
  await expect(admin.getByRole('button', { name: `Export the codes of ${name}` })).toHaveCount(0);
  await screenshot(admin, 'admin-redemption');
  // Once only: the service keeps only the codes' hashes now.
  const batchId = (
    await (await admin.request.get('/api/admin/redemption-batches')).json()
  ).data.find((b: { name: string }) => b.name === name).id;
  const again = await admin.request.post(`/api/admin/redemption-batches/${batchId}/export`);
  expect(again.status()).toBe(410);

  await signUpVerified(page, newEmail('redeem'));
  const before = await balanceOf(page);
  await page.goto('/en/dashboard/billing');
  await expect(page.getByTestId('balance')).toHaveText(`${before} credits`);
  const code = page.getByRole('textbox', { name: 'Code', exact: true });
  // As typed: lower case and without hyphens reads the same.
  await code.fill(first.toLowerCase().replaceAll('-', ''));
  await page.getByRole('button', { name: 'Redeem' }).click();
  await expect(page.getByTestId('redeemed')).toHaveText(
    `250 credits added. Your balance is now ${before + 250} credits.`,
  );
  await expect(page.getByTestId('balance')).toHaveText(`${before + 250} credits`);

  await code.fill(first);
  await page.getByRole('button', { name: 'Redeem' }).click();
  await expect(page.getByRole('alert')).toHaveText('You have redeemed this code already.');
  await page.reload();
  await expect(page.getByTestId('balance')).toHaveText(`${before + 250} credits`);
  expect(await balanceOf(page)).toBe(before + 250);
  const ledger = await (await page.request.get('/api/credits/transactions')).json();
  const grants = ledger.data.filter((e: { type: string }) => e.type === 'REDEMPTION');
  expect(grants).toEqual([expect.objectContaining({ amount: 250 })]);

  await admin.reload();
  await expect(row).toContainText('1 use taken');
  await admin.getByRole('button', { name: `Disable ${name}` }).click();
  await expect(row).toContainText('Disabled');
  await page.getByRole('textbox', { name: 'Code', exact: true }).fill(second);
  await page.getByRole('button', { name: 'Redeem' }).click();
  await expect(page.getByRole('alert')).toHaveText(
    'This code is not valid: it is unknown, used up or withdrawn.',
  );
  expect(await balanceOf(page)).toBe(before + 250);
  await admin.context().close();
});
