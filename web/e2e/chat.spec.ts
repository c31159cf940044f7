import { expect, test } from '@playwright/test';
import { newEmail, newestMailTo, PASSWORD, screenshot, signUpVerified } from './support';

/**
 * The newcomer's path: sign up, follow the mailed verification link (the sign-up credits
 * arrive), chat with a streamed answer, and see the balance drop by the answer's cost, which
 * the ledger shows too.
 */
test('sign up, verify by the mailed link, chat, and pay the answer’s cost', async ({ page }) => {
  const email = newEmail('ada');
  await page.goto('/en/auth/signup');
  await page.getByLabel('Name').fill('Ada');
  await page.getByLabel('Email').fill(email);
  await page.getByRole('textbox', { name: 'Password' }).fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign up' }).click();
  await expect(page.getByText(`We sent a verification link to ${email}`)).toBeVisible();

  const mail = await newestMailTo(email);
  const link = /https?:\/\/\S+\/en\/auth\/verify-email\?token=[\w%-]+/.exec(mail)?.[0];
  expect(link).toBeDefined();
  const { pathname, search } = new URL(link!);
  await page.goto(pathname + search);
  await page.getByRole('button', { name: 'Verify my address' }).click();
  await expect(page.getByText('Your address is verified.')).toBeVisible();

  await page.getByRole('link', { name: 'Continue to the dashboard' }).click();
  await expect(page.getByRole('heading', { name: 'Dashboard', level: 1 })).toBeVisible();
  await expect(page.getByTestId('balance')).toHaveText('100 credits');
  await expect(page.getByRole('img', { name: /Credits used per day/ })).toBeVisible();

  await page.getByRole('link', { name: 'Chat', exact: true }).click();
  await page.getByLabel('Model').selectOption('gpt-4o-mini');
  await expect(page.getByTestId('chat-balance')).toHaveText('Balance: 100 credits');
  await page.getByLabel('Message').fill('Say hello');
  const answer = page.waitForResponse((r) => r.url().endsWith('/api/ai/chat'));
  await page.getByRole('button', { name: 'Send' }).click();
  // An event stream in the AI SDK's UI message protocol, read by useChat as it arrives.
  const res = await answer;
  expect(res.status()).toBe(200);
  expect(res.headers()['content-type']).toContain('text/event-stream');
  expect(res.headers()['x-vercel-ai-ui-message-stream']).toBe('v1');

  const reply = page.getByTestId('message-assistant');
  await expect(reply).toContainText('Hello from the test model.');
  const costText = await reply.getByTestId('cost').textContent();
  const cost = Number(/(\d+) credits?$/.exec(costText ?? '')?.[1]);
  expect(cost).toBeGreaterThan(0);
  await expect(page.getByTestId('chat-balance')).toHaveText(
    new RegExp(`^Balance: ${100 - cost} credits?$`),
  );
  await screenshot(page, 'chat');

  const credits = await (await page.request.get('/api/credits')).json();
  expect(credits.balance).toBe(100 - cost);
  const ledger = await (await page.request.get('/api/credits/transactions?limit=2')).json();
  expect(ledger.data[0]).toMatchObject({ type: 'CONSUMPTION', amount: -cost });
  expect(ledger.data[1]).toMatchObject({ type: 'BONUS', amount: 100 });

  await page.getByRole('link', { name: 'Dashboard', exact: true }).click();
  await expect(page.getByTestId('balance')).toHaveText(new RegExp(`^${100 - cost} credits?$`));
  await expect(page.getByRole('link', { name: /Say hello|Untitled chat/ })).toBeVisible();
  // The plan's daily limit (100 credits on FREE), less what the answer cost.
  await expect(page.getByTestId('limit-plan-day')).toContainText(
    `${100 - cost} of 100 credits left`,
  );
  await screenshot(page, 'dashboard');
});

/** Stop ends a reply that is still streaming; the part already shown stays. */
test('stop a streaming answer', async ({ page }) => {
  await signUpVerified(page, newEmail('stop'));
  await page.goto('/en/dashboard/chat');
  await page.getByLabel('Model').selectOption('gpt-4o-mini');
  await page.getByLabel('Message').fill('[stall] Tell me a long story');
  await page.getByRole('button', { name: 'Send' }).click();
  const reply = page.getByTestId('message-assistant');
  // The local model sends one piece of text, then nothing until the client goes away.
  await expect(reply).toContainText('Hello');
  await page.getByRole('button', { name: 'Stop' }).click();
  await expect(page.getByRole('button', { name: 'Stop' })).toHaveCount(0);
  await expect(page.getByRole('button', { name: 'Send' })).toBeEnabled();
  await expect(reply).toContainText('Hello');
  await expect(reply).not.toContainText('Hello from the test model.');
});
