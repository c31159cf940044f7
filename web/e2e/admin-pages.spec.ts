import { expect, type Page, test } from '@playwright/test';
import { ADMINS } from './global-setup';
import { newEmail, pageOf, screenshot, signUpVerified } from './support';

const [, , , , MODELS_ADMIN, AUDIT_ADMIN] = ADMINS;

/** The signed-in user's id, by the session of `page`'s browser context. */
async function userId(page: Page): Promise<string> {
  return (await (await page.request.get('/api/auth/session')).json()).user.id;
}

/** The administrator sees the whole catalogue, one row a model, with its prices. */
test('an admin sees the models and their prices', async ({ browser }) => {
  const admin = await pageOf(browser, MODELS_ADMIN);
  const { models } = await (await admin.request.get('/api/ai/models')).json();
  expect(models.length).toBeGreaterThan(0);
  await admin.goto('/en/admin/models');
  await expect(admin.getByRole('heading', { name: 'Models and prices', level: 1 })).toBeVisible();
  const rows = admin.getByRole('table').getByRole('row');
  await expect(rows).toHaveCount(models.length + 1);
  const mini = models.find((m: { id: string }) => m.id === 'gpt-4o-mini');
  const row = admin.getByRole('row', { name: /gpt-4o-mini/ }).first();
  await expect(row).toContainText(mini.providerId);
  // As the page writes prices: USD per thousand tokens, at most four decimals.
  const price = new Intl.NumberFormat('en', { maximumFractionDigits: 4 });
  await expect(row).toContainText(price.format(mini.inputPrice) + price.format(mini.outputPrice));
  await admin.context().close();
});

/** Filtering the audit log by action shows that action only. */
test('the audit log filtered by actor and action', async ({ page, browser }) => {
  await signUpVerified(page, newEmail('audited'));
  const actor = await userId(page);
  const made = await page.request.post('/api/keys', { data: { name: 'audited key' } });
  expect(made.status()).toBe(201);
  const body = await made.json();
  const keyId = body.id ?? body.data?.id;
  expect((await page.request.delete(`/api/keys/${keyId}`)).ok()).toBe(true);

  const admin = await pageOf(browser, AUDIT_ADMIN);
  await admin.goto('/en/admin/audit');
  await admin.getByLabel('Actor (user id)').fill(actor);
  await admin.getByRole('button', { name: 'Apply' }).click();
  const table = admin.getByTestId('audit-table');
  await expect(table).toContainText('api_key.create');
  await expect(table).toContainText('api_key.revoke');

  await admin.getByRole('combobox', { name: 'Action' }).fill('api_key.revoke');
  await admin.getByRole('option', { name: 'api_key.revoke' }).click();
  await admin.getByRole('button', { name: 'Apply' }).click();
  await expect(table).not.toContainText('api_key.create');
  const rows = table.locator('tbody tr');
  await expect(rows).toHaveCount(1);
  await expect(rows.first()).toContainText('api_key.revoke');
  await screenshot(admin, 'admin-audit');
  await admin.context().close();
});
