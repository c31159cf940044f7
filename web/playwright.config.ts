import { defineConfig } from '@playwright/test';

/**
 * The console's browser suite (`npm run test:web` from the repository root, which builds
 * first). The global setup starts the real built service (`node dist/src/main.js`) serving
 * web/dist, with its own database, mail folder and the local OpenAI-protocol server, and
 * publishes its address as CONSOLE_URL. Debian's Chromium (`/usr/bin/chromium`, or
 * CHROMIUM_PATH) runs the pages: Playwright's own browser downloads are never used.
 */
export default defineConfig({
  testDir: 'e2e',
  globalSetup: './e2e/global-setup.ts',
  // Every test signs up its own user: tests run side by side on one service.
  fullyParallel: true,
  workers: 2,
  retries: 0,
  forbidOnly: true,
  timeout: 120_000,
  // Hang bounds, not budgets: each wait ends on an event (an element, a mail file, an answer).
  expect: { timeout: 30_000 },
  reporter: [['list']],
  outputDir: 'test-results',
  use: {
    baseURL: process.env.CONSOLE_URL,
    browserName: 'chromium',
    locale: 'en-US',
    trace: 'off',
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-dev-shm-usage',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
      ],
    },
  },
});
