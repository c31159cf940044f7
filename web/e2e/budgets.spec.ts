import { expect, test } from '@playwright/test';
import { newEmail, screenshot, signUpVerified } from './support';

/** Budgets: my own cap set, seen among the windows left beside the plan's, then deleted. */
test('set a daily budget on myself, see what is left in it, and delete it', async ({ page }) => {
  await signUpVerified(page, newEmail('budgets'));
  await page.goto('/en/dashboard/budgets');
  await expect(page.getByRole('heading', { name: 'Budgets', level: 1 })).toBeVisible();
  await expect(page.getByText('No budget yet.')).toBeVisible();
  // The plan's daily limit (100 credits on FREE) is a window before any budget.
  await expect(page.getByTestId('limit-plan-day')).toContainText('100 of 100 credits left');

  await page.getByLabel('Today: limit in credits').fill('40');
  await page.getByLabel('This week: limit in credits').fill('70');
  await page.getByRole('button', { name: 'Save budget' }).click();
  const row = page.getByRole('row', { name: /My budget/ });
  await expect(row).toContainText('Today: 40 credits, This week: 70 credits');
  await expect(page.getByTestId('limit-user-day')).toContainText('40 of 40 credits left');
  await expect(page.getByTestId('limit-user-week')).toContainText('70 of 70 credits left');
  const limits = await (await page.request.get('/api/credits/limits')).json();
  expect(
    limits.data.map((w: { scope: string; window: string }) => `${w.scope}:${w.window}`),
  ).toEqual(['user:day', 'user:week', 'plan:day']);
  await screenshot(page, 'budgets');

  // A limit the service refuses shows its message and changes nothing.
  await page.getByLabel('Time zone').fill('Mars/Olympus');
  await page.getByRole('button', { name: 'Save budget' }).click();
  await expect(page.getByRole('alert')).toBeVisible();
  await expect(row).toContainText('Today: 40 credits, This week: 70 credits');

  await page.getByRole('button', { name: 'Delete the budget of My budget' }).click();
  await expect(row).toHaveCount(0);
  await expect(page.getByText('No budget yet.')).toBeVisible();
  await expect(page.getByTestId('limit-user-day')).toHaveCount(0);
});
