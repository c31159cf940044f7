import { expect, test } from '@playwright/test';
import { newEmail, signUpVerified } from './support';

/** A saved answer bookmarked from its chat: listed beside the chats, opens the chat, removable. */
test('bookmark an answer, open its chat from the bookmarks, remove it', async ({ page }) => {
  await signUpVerified(page, newEmail('bookmarks'));
  await page.goto('/en/dashboard/chat');
  await page.getByLabel('Model').selectOption('gpt-4o-mini');
  await page.getByLabel('Message').fill('Something to keep');
  await page.getByRole('button', { name: 'Send' }).click();
  await expect(page.getByTestId('message-assistant').getByTestId('cost')).toBeVisible();
  const bookmarks = page.getByTestId('bookmark-list');
  await expect(bookmarks).toContainText('No bookmarks yet.');
  await page.getByTestId('chat-list').getByRole('link').first().click();
  const chatUrl = page.url();

  const answer = page.getByTestId('message-assistant');
  await answer.getByRole('button', { name: 'Bookmark' }).click();
  await expect(answer.getByRole('button', { name: 'Bookmarked' })).toBeDisabled();
  const link = bookmarks.getByRole('link', { name: /Hello from the test model/ });
  await expect(link).toBeVisible();

  await page.goto('/en/dashboard/chat');
  await link.click();
  await expect(page).toHaveURL(chatUrl);
  await bookmarks.getByRole('button', { name: 'Remove bookmark' }).click();
  await expect(bookmarks).toContainText('No bookmarks yet.');
});
