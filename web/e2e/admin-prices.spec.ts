import { expect, test } from '@playwright/test';
import { ADMINS } from './global-setup';
import { pageOf, screenshot, sql } from './support';

const PRICES_ADMIN = ADMINS[8];
/** Models no other test of the suite calls: their prices may change here. */
const APPROVED = 'gemini-3.1-pro';
const REJECTED = 'claude-opus-5';

/**
 * The price catalogue page: two increases held as the sync holds them (rows of price_changes:
 * the suite has no PRICES_URL), one approved and one rejected; the approved model's versions,
 * the catalogue's and the admin's; the sync answering its 503 without PRICES_URL.
 */
test('an admin decides held price increases and reads the versions', async ({ browser }) => {
  const admin = await pageOf(browser, PRICES_ADMIN);
  const catalogue = async (model: string) => {
    const res = await admin.request.get(`/api/admin/prices/models/${model}/versions`);
    expect(res.status()).toBe(200);
    const { data } = await res.json();
    expect(data).toEqual([expect.objectContaining({ source: 'catalogue' })]);
    return data[0].prices as Record<string, string>;
  };
  for (const model of [APPROVED, REJECTED]) {
    const previous = await catalogue(model);
    const prices = {
      ...previous,
      input: String(Number(previous.input) * 1.5),
      output: String(Number(previous.output) * 1.5),
    };
    await sql(
      `INSERT INTO price_changes ("modelId", prices, previous, "increasePercent")
       VALUES ($1, $2, $3, 50)`,
      [model, JSON.stringify(prices), JSON.stringify(previous)],
    );
  }
  const before = await catalogue(APPROVED);

  await admin.goto('/en/admin/prices');
  await expect(admin.getByRole('heading', { name: 'Price catalogue', level: 1 })).toBeVisible();
  const changes = admin.getByTestId('price-changes');
  const approvedRow = changes.getByRole('row', { name: new RegExp(APPROVED) });
  await expect(approvedRow).toContainText('+50%');
  await expect(approvedRow).toContainText(`Input ${before.input} → ${Number(before.input) * 1.5}`);
  await expect(changes.getByRole('row', { name: new RegExp(REJECTED) })).toBeVisible();

  await admin.getByRole('button', { name: `Approve the price change of ${APPROVED}` }).click();
  await expect(approvedRow).toHaveCount(0);
  await admin.getByRole('button', { name: `Reject the price change of ${REJECTED}` }).click();
  await expect(admin.getByText('No price changes.')).toBeVisible();
  await admin.getByText('All', { exact: true }).click();
  await expect(changes.getByRole('row', { name: new RegExp(APPROVED) })).toContainText('Approved');
  await expect(changes.getByRole('row', { name: new RegExp(REJECTED) })).toContainText('Rejected');

  // The approved model: the catalogue's version, then the admin's, in force now.
  await admin.getByRole('combobox', { name: 'Model' }).fill(APPROVED);
  await admin.getByRole('option', { name: new RegExp(APPROVED) }).click();
  const versions = admin.getByTestId('price-versions').locator('tbody tr');
  await expect(versions).toHaveCount(2);
  await expect(versions.nth(0)).toContainText('the start');
  await expect(versions.nth(0)).toContainText('Catalogue');
  await expect(versions.nth(0)).toContainText(before.output);
  await expect(versions.nth(1)).toContainText('Approved by an admin');
  await expect(versions.nth(1)).toContainText('in force');
  await expect(versions.nth(1)).toContainText(String(Number(before.output) * 1.5));
  const res = await admin.request.get(`/api/admin/prices/models/${APPROVED}/versions`);
  const inForce = (await res.json()).data.at(-1);
  expect(inForce).toMatchObject({ source: 'admin' });
  expect(Number(inForce.prices.input)).toBe(Number(before.input) * 1.5);
  // The rejected model keeps its catalogue price only.
  await catalogue(REJECTED);

  await admin.getByRole('button', { name: 'Sync now' }).click();
  await expect(admin.getByRole('alert')).toHaveText(
    'The sync could not run: no price list is set (PRICES_URL), or the price source did not ' +
      'answer. (PRICES_URL is not set)',
  );
  await admin.evaluate(() => window.scrollTo(0, 0));
  await screenshot(admin, 'admin-prices');
  await admin.context().close();
});
