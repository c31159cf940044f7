import { expect, test } from '@playwright/test';
import { balanceOf, newEmail, screenshot, signUpVerified } from './support';

/**
 * Buying credits with Alipay: the page sends the browser to Alipay's authorisation page (the
 * local Stripe server's), which pays and delivers the signed webhook, then returns to the
 * service's `/payment/success`; the balance rises once, by one PURCHASE entry.
 */
test('buy credits, and the balance rises once', async ({ page }) => {
  await signUpVerified(page, newEmail('buy'));
  const before = await balanceOf(page);
  await page.goto('/en/dashboard/billing');
  await expect(page.getByTestId('balance')).toHaveText(`${before} credits`);
  await expect(page.getByTestId('referral-link')).toContainText('/en/signup?ref=');
  await expect(page.getByTestId('referral-counts')).toHaveText(
    '0 invited, 0 rewarded, 0 credits earned',
  );
  await page.getByRole('radio', { name: 'Alipay' }).check();
  await page.getByRole('combobox', { name: 'Pack' }).click();
  await page.getByRole('option', { name: '¥50 for 700 credits' }).click();
  await screenshot(page, 'billing');
  await page.getByRole('button', { name: 'Pay' }).click();

  await expect(page).toHaveURL(/\/en\/payment\/success\?purchase=/);
  await expect(page.locator('main[data-status="succeeded"]')).toBeVisible();
  await page.goto('/en/dashboard/billing');
  await expect(page.getByTestId('balance')).toHaveText(`${before + 700} credits`);
  await expect(page.getByTestId('purchase-row')).toHaveCount(1);
  await expect(page.getByTestId('purchase-row')).toContainText('Paid, credits added');

  expect(await balanceOf(page)).toBe(before + 700);
  const ledger = await (await page.request.get('/api/credits/transactions')).json();
  const purchases = ledger.data.filter((e: { type: string }) => e.type === 'PURCHASE');
  expect(purchases).toEqual([expect.objectContaining({ amount: 700 })]);
});
