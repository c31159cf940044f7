import { expect, type Page, test } from '@playwright/test';
import { randomBytes } from 'node:crypto';
import { newEmail, screenshot, seriousViolations, signUpVerified } from './support';

/** Chats once with `prompt` and opens that chat from the list (the page of a saved chat). */
async function savedChat(page: Page, prompt: string): Promise<void> {
  await page.goto('/en/dashboard/chat');
  await page.getByLabel('Model').selectOption('gpt-4o-mini');
  await page.getByLabel('Message').fill(prompt);
  await page.getByRole('button', { name: 'Send' }).click();
  await expect(page.getByTestId('message-assistant').getByTestId('cost')).toBeVisible();
  await page.getByTestId('chat-list').getByRole('link').first().click();
  await expect(page).toHaveURL(/dashboard\/chat\?id=/);
  await expect(page.getByTestId('message-user')).toContainText(prompt);
}

/** A new tag on a chat filters the list to it; a search for a word of it finds the chat. */
test('tag a chat, filter by the tag, and find the chat by search', async ({ page }) => {
  await signUpVerified(page, newEmail('tags'));
  const word = `zebra${randomBytes(3).toString('hex')}`;
  await savedChat(page, `Tell me about the ${word}`);
  const chatUrl = page.url();
  // A second chat without the tag, which the filter leaves out.
  await savedChat(page, 'Something else entirely');
  await expect(page.getByTestId('chat-list').getByRole('link')).toHaveCount(2);

  await page.goto(chatUrl);
  await page.getByLabel('New tag').fill('research');
  await page.getByRole('button', { name: 'Add tag' }).click();
  await expect(page.getByTestId('chat-list').getByText('research')).toBeVisible();
  await page.getByLabel('Show chats tagged').selectOption({ label: 'research' });
  await expect(page.getByTestId('chat-list').getByRole('link')).toHaveCount(1);
  expect(await seriousViolations(page)).toEqual([]);
  await screenshot(page, 'chat-tags');

  await page.getByLabel('Search my chats').fill(word);
  await page.getByLabel('Search my chats').press('Enter');
  const hit = page.getByTestId('search-results').getByRole('link');
  await expect(hit).toHaveCount(1);
  await expect(hit).toContainText(word);
  await page.goto('/en/dashboard');
  await page.goto(chatUrl.replace(/\?.*/, ''));
  await page.getByLabel('Search my chats').fill(word);
  await page.getByLabel('Search my chats').press('Enter');
  await page.getByTestId('search-results').getByRole('link').click();
  await expect(page).toHaveURL(chatUrl);
});

/** A chat's public link opens the chat read only for a signed-out visitor. */
test('a share link opens the shared chat signed out', async ({ page, browser }) => {
  await signUpVerified(page, newEmail('share'));
  await savedChat(page, 'A chat worth sharing');
  await page.getByRole('button', { name: 'Make a public link' }).click();
  const url = await page.getByLabel(/Public link/).inputValue();
  expect(url).toMatch(/\/share\/[\w-]+$/);

  const visitor = await browser.newContext({ baseURL: process.env.CONSOLE_URL });
  const outside = await visitor.newPage();
  await outside.goto(new URL(url).pathname);
  await expect(outside).toHaveURL(/\/en\/share\//);
  await expect(outside.getByTestId('shared-messages')).toContainText('A chat worth sharing');
  await expect(outside.getByTestId('shared-messages')).toContainText('Hello from the test model.');
  expect(await seriousViolations(outside)).toEqual([]);
  await screenshot(outside, 'share');

  await page.getByRole('button', { name: 'Revoke the public link' }).click();
  await expect(page.getByRole('button', { name: 'Make a public link' })).toBeVisible();
  await outside.reload();
  await expect(outside.getByRole('alert')).toBeVisible();
  await visitor.close();
});

/** A 1×1 PNG. */
const PIXEL = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'base64',
);

/**
 * The parameters, the chosen plugins and an attached image go with the message; the image is
 * an upload, so the reopened chat shows it again, and the parameters are saved to the chat and
 * restored when it is reopened.
 */
test('parameters, plugins and an image go with the message and come back with the chat', async ({
  page,
}) => {
  await signUpVerified(page, newEmail('params'));
  await page.goto('/en/dashboard/chat');
  await page.getByLabel('Model').selectOption('gpt-4o-mini');
  await page.getByLabel('Temperature').fill('0.3');
  await page.getByLabel('Top-p').fill('0.9');
  await page.getByLabel('Maximum length (tokens)').fill('200');
  // By keyboard: focus the plugin picker and open its list.
  await page.getByRole('combobox', { name: 'Plugins' }).focus();
  await page.keyboard.press('ArrowDown');
  await page.getByRole('option', { name: 'calculator' }).click();
  await page.keyboard.press('Escape');
  await page.locator('input[type=file]').setInputFiles({
    name: 'pixel.png',
    mimeType: 'image/png',
    buffer: PIXEL,
  });
  await page.getByLabel('Message').fill('What is in this picture?');
  const sent = page.waitForRequest((r) => r.url().endsWith('/api/ai/chat'));
  const saved = page.waitForResponse(
    (r) => r.request().method() === 'PATCH' && /\/api\/chats\/[\w-]+$/.test(r.url()),
  );
  await page.getByRole('button', { name: 'Send' }).click();
  const body = (await sent).postDataJSON();
  expect(body).toMatchObject({ temperature: 0.3, topP: 0.9, maxTokens: 200 });
  expect(body.plugins).toEqual(['calculator']);
  // The image went to the uploads first, and the message names it by its signed link.
  expect(body.messages.at(-1).parts).toContainEqual(
    expect.objectContaining({
      type: 'file',
      mediaType: 'image/png',
      filename: 'pixel.png',
      url: expect.stringMatching(/^\/uploads\/[^?]+-pixel\.png\?exp=\d+&sig=/),
    }),
  );
  await expect(
    page.getByTestId('message-user').getByRole('img', { name: 'pixel.png' }),
  ).toBeVisible();
  await expect(page.getByTestId('message-assistant').getByTestId('cost')).toBeVisible();
  // Once the reply has created the chat, what the message was sent with is its settings.
  expect((await saved).status()).toBe(200);
  const chatId = body.id as string;
  const stored = await (await page.request.get(`/api/chats/${chatId}`)).json();
  expect(stored.data.settings).toEqual({
    modelId: 'gpt-4o-mini',
    temperature: 0.3,
    topP: 0.9,
    maxTokens: 200,
    plugins: ['calculator'],
  });

  // Reopened later: the image and every parameter are back.
  await page.goto('/en/dashboard');
  await page.goto(`/en/dashboard/chat?id=${chatId}`);
  const image = page.getByTestId('message-user').getByRole('img', { name: 'pixel.png' });
  await expect(image).toBeVisible();
  expect(await image.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBe(1);
  await expect(page.getByLabel('Model')).toHaveValue('gpt-4o-mini');
  await expect(page.getByLabel('Temperature')).toHaveValue('0.3');
  await expect(page.getByLabel('Top-p')).toHaveValue('0.9');
  await expect(page.getByLabel('Maximum length (tokens)')).toHaveValue('200');
  await expect(page.getByRole('group', { name: 'Parameters' })).toContainText('calculator');
  expect(await seriousViolations(page)).toEqual([]);
});

/** A change to the parameters of a saved chat is saved as it is made, and is there next time. */
test('a saved chat keeps a parameter changed on its page', async ({ page }) => {
  await signUpVerified(page, newEmail('chat-settings'));
  const created = await page.request.post('/api/chats', { data: { title: 'Settings kept' } });
  expect(created.status()).toBe(201);
  const chatId = (await created.json()).data.id as string;
  await page.goto(`/en/dashboard/chat?id=${chatId}`);
  await expect(page.getByRole('heading', { name: 'Settings kept', level: 1 })).toBeVisible();
  // The save that carries the last change (an earlier one may carry only the model).
  const changed = page.waitForResponse(
    (r) =>
      r.request().method() === 'PATCH' &&
      r.url().endsWith(`/api/chats/${chatId}`) &&
      r.request().postDataJSON()?.settings?.temperature === 0.7,
  );
  await page.getByLabel('Model').selectOption('gpt-4o-mini');
  await page.getByLabel('Temperature').fill('0.7');
  expect((await changed).status()).toBe(200);
  await page.reload();
  await expect(page.getByLabel('Temperature')).toHaveValue('0.7');
  await expect(page.getByLabel('Model')).toHaveValue('gpt-4o-mini');
});
