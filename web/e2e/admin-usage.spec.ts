import { expect, test } from '@playwright/test';
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { ADMINS } from './global-setup';
import { newEmail, pageOf, screenshot, seriousViolations, signUpVerified } from './support';

const USAGE_ADMIN = ADMINS[6];

/**
 * The usage explorer across users: by team, a team's row narrows to its members, a member's row
 * to their models; the chart and the table show it, and the CSV holds the table's row.
 */
test('the usage explorer narrows from a team to a member to a model, and exports CSV', async ({
  page,
  browser,
}) => {
  const email = newEmail('usage');
  const teamName = `Usage team ${randomBytes(3).toString('hex')}`;
  await signUpVerified(page, email);
  // The team first: a team's usage is its members' consumption since they joined.
  const team = await page.request.post('/api/teams', { data: { name: teamName } });
  expect(team.status()).toBe(201);
  await page.goto('/en/dashboard/chat');
  await page.getByLabel('Model').selectOption('gpt-4o-mini');
  await page.getByLabel('Message').fill('Count my usage');
  await page.getByRole('button', { name: 'Send' }).click();
  await expect(page.getByTestId('message-assistant').getByTestId('cost')).toBeVisible();

  const admin = await pageOf(browser, USAGE_ADMIN);
  await admin.goto('/en/admin/usage');
  // Everyone's usage by user first.
  await expect(admin.getByTestId('usage-table').getByText(email)).toBeVisible();
  await admin.getByText('Team', { exact: true }).click();
  await admin.getByRole('button', { name: teamName }).click();
  await expect(admin.getByTestId('team-filter')).toContainText(teamName);
  // The team's members, by user: only the one member.
  const table = admin.getByTestId('usage-table');
  await expect(table.locator('tbody tr')).toHaveCount(1);
  await admin.getByRole('button', { name: email }).click();
  await expect(admin.getByRole('combobox', { name: 'User' })).toHaveValue(email);
  await expect(table.locator('tbody tr')).toHaveCount(1);
  await expect(table.locator('tbody tr')).toContainText('gpt-4o-mini');
  await expect(admin.getByRole('img', { name: 'Credits used' })).toBeVisible();
  expect(await seriousViolations(admin)).toEqual([]);
  await screenshot(admin, 'admin-usage');

  const saved = admin.waitForEvent('download');
  await admin.getByRole('button', { name: 'Export CSV' }).click();
  const file = await saved;
  expect(file.suggestedFilename()).toMatch(/^usage-model-.*\.csv$/);
  const lines = (await readFile((await file.path())!, 'utf8')).trim().split('\r\n');
  expect(lines[0]).toBe(
    'label,key,requests,promptTokens,completionTokens,cachedTokens,cacheSavings,credits',
  );
  expect(lines).toHaveLength(2);
  expect(lines[1]).toMatch(/^gpt-4o-mini,gpt-4o-mini,1,\d+,\d+,\d+,\d+,\d+$/);

  // Clearing the team keeps the user; the switch regroups by day, every day of the range.
  await admin.getByRole('button', { name: 'Show every team' }).click();
  await admin.getByText('Day', { exact: true }).click();
  await expect(table.locator('tbody tr')).toHaveCount(30);
  await admin.context().close();
});
