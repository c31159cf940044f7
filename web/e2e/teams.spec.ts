import { expect, test } from '@playwright/test';
import { newEmail, pageOf, screenshot, signUpVerified } from './support';

/** A team: created, its pool funded, a member invited by email joins through the mailed link, then promoted. */
test('create a team, invite a member who joins by the link, and change their role', async ({
  page,
  browser,
}) => {
  await signUpVerified(page, newEmail('owner'));
  const memberEmail = newEmail('member');
  const member = await pageOf(browser, memberEmail);

  await page.goto('/en/dashboard/teams');
  await page.getByLabel('Team name').fill('Research');
  await page.getByRole('button', { name: 'Create team' }).click();
  await expect(page.getByRole('heading', { name: 'Research', level: 2 })).toBeVisible();
  // The pool, funded from the owner's balance (100 sign-up credits).
  await expect(page.getByTestId('pool-balance')).toHaveText(/^0 credits in the pool/);
  await page.getByLabel('Credits to move from my balance').fill('30');
  await page.getByRole('button', { name: 'Move to the pool' }).click();
  await expect(page.getByTestId('pool-balance')).toHaveText(/^30 credits in the pool/);
  await page.getByRole('textbox', { name: 'Email', exact: true }).fill(memberEmail);
  await page.getByRole('button', { name: 'Invite', exact: true }).click();
  const link = (await page.getByText('/invitations/accept?token=').textContent())!.trim();
  await expect(page.getByText(`${memberEmail} · Member · pending`)).toBeVisible();

  await member.goto('/en/dashboard/teams');
  await expect(member.getByText(/Research as Member/)).toBeVisible();
  await member.goto(link.replace(/^https?:\/\/[^/]+/, ''));
  await expect(member).toHaveURL(/\/en\/invitations\/accept\?token=/);
  await member.getByRole('button', { name: 'Accept the invitation' }).click();
  await expect(member.getByText('You joined Research.')).toBeVisible();

  await page.reload();
  const row = page.getByRole('row', { name: new RegExp(memberEmail) });
  await expect(row).toBeVisible();
  await row.getByRole('combobox', { name: `Role of ${memberEmail}` }).click();
  await page.getByRole('option', { name: 'Admin' }).click();
  await member.goto('/en/dashboard/teams');
  await expect(member.getByRole('button', { name: /Research/ })).toContainText('Admin');
  await screenshot(page, 'teams');
  await member.context().close();
});
