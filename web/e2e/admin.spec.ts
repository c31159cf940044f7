import { expect, test } from '@playwright/test';
import { randomBytes } from 'node:crypto';
import { paymentIntentObject, stripeEvent } from '../../test/servers/stripe-events';
import { ADMINS } from './global-setup';
import { deliverEvent } from './stripe';
import { balanceOf, newEmail, pageOf, screenshot, signUpVerified, sql } from './support';

const [USERS_ADMIN, PAYMENTS_ADMIN, UPSTREAMS_ADMIN] = ADMINS;

test('an admin adjusts a user’s credits, and the user’s page shows it', async ({
  page,
  browser,
}) => {
  const email = newEmail('adjusted');
  await signUpVerified(page, email);
  const before = await balanceOf(page);
  const admin = await pageOf(browser, USERS_ADMIN);

  await admin.goto('/en/admin/users');
  await admin.getByLabel('Email or name contains').fill(email.slice(0, 16));
  await admin.getByRole('button', { name: 'Search' }).click();
  await admin.getByRole('link', { name: email }).click();
  await expect(admin.getByRole('heading', { name: email, level: 1 })).toBeVisible();
  await expect(admin.getByTestId('user-credits')).toHaveText(`${before} credits`);
  await admin.getByLabel('Credits to add').fill('250');
  await admin.getByLabel('Reason').fill('Goodwill for ticket 4711');
  await admin.getByRole('button', { name: 'Adjust balance' }).click();
  await expect(admin.getByTestId('user-credits')).toHaveText(`${before + 250} credits`);
  await expect(admin.getByTestId('audit-table')).toContainText('user.credits.adjust');
  await expect(admin.getByTestId('audit-table')).toContainText('Goodwill for ticket 4711');
  await screenshot(admin, 'admin-user');

  await page.goto('/en/dashboard');
  await expect(page.getByTestId('balance')).toHaveText(`${before + 250} credits`);
  const ledger = await (await page.request.get('/api/credits/transactions')).json();
  expect(ledger.data[0]).toMatchObject({
    type: 'ADJUSTMENT',
    amount: 250,
    description: 'Goodwill for ticket 4711',
  });
  await admin.context().close();
});

test('an admin replays a failed webhook', async ({ page, browser }) => {
  const email = newEmail('replayed');
  await signUpVerified(page, email);
  const before = await balanceOf(page);
  const [{ id: userId }] = await sql<{ id: string }>('SELECT id FROM users WHERE email = $1', [
    email,
  ]);
  // Until the trigger goes, the ledger refuses this user's entries: the grant's handler fails.
  const name = `refuse_${randomBytes(4).toString('hex')}`;
  await sql(`CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql
    AS $$ BEGIN RAISE EXCEPTION 'ledger unavailable for this user'; END $$`);
  await sql(`CREATE TRIGGER ${name} BEFORE INSERT ON credit_transactions FOR EACH ROW
    WHEN (NEW."userId" = '${userId}') EXECUTE FUNCTION ${name}()`);
  const event = stripeEvent(
    'payment_intent.succeeded',
    paymentIntentObject({
      amount: 300,
      metadata: { userId, credits: '300', type: 'credit_purchase' },
    }),
  );
  expect(await deliverEvent(process.env.CONSOLE_URL!, event)).toBe(500);
  await sql(`DROP TRIGGER ${name} ON credit_transactions`);
  await sql(`DROP FUNCTION ${name}()`);
  expect(await balanceOf(page)).toBe(before);

  const admin = await pageOf(browser, PAYMENTS_ADMIN);
  await admin.goto('/en/admin/payments');
  const row = admin.getByRole('row', { name: new RegExp(event.id) });
  await expect(row).toContainText('ledger unavailable for this user');
  await screenshot(admin, 'admin-payments');
  await row.getByRole('button', { name: `Replay event ${event.id}` }).click();
  await expect(admin.getByText(`Event ${event.id} replayed and applied.`)).toBeVisible();
  await expect(row).toHaveCount(0);
  expect(await balanceOf(page)).toBe(before + 300);
  await admin.context().close();
});

test('an admin adds an upstream and tests it', async ({ browser }) => {
  const admin = await pageOf(browser, UPSTREAMS_ADMIN);
  await admin.goto('/en/admin/upstreams');
  const form = admin.getByRole('form', { name: 'Add an upstream' });
  await form.getByRole('textbox', { name: 'Name', exact: true }).fill('local-model');
  await form.getByLabel('Base URL').fill(process.env.CONSOLE_OPENAI_URL!);
  await form.getByLabel('API key').fill('local');
  await form.getByLabel('Models').fill('gpt-4o-mini');
  await form.getByRole('button', { name: 'Add an upstream' }).click();
  const row = admin.getByRole('row', { name: /local-model/ });
  await expect(row).toContainText('healthy');
  await row.getByRole('button', { name: 'Test local-model' }).click();
  await expect(admin.getByTestId('test-result')).toHaveText(/gpt-4o-mini answered in \d+ ms\./);

  // Changed: disabled, and the list says so.
  await row.getByRole('button', { name: 'Edit local-model' }).click();
  const edit = admin.getByRole('form', { name: 'Edit' });
  await edit.getByRole('switch', { name: 'Enabled' }).uncheck();
  await edit.getByRole('button', { name: 'Save' }).click();
  await expect(row).toContainText('disabled');
  await screenshot(admin, 'admin-upstreams');
  await admin.context().close();
});
