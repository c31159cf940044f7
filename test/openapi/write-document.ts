import { writeFileSync } from 'node:fs';
import request from 'supertest';
import globalSetup from '../support/global-setup';
import globalTeardown from '../support/global-teardown';
import { createTestApp } from '../support/test-app';

/**
 * Writes the live OpenAPI document (GET /api/docs-json of the real AppModule) to the path given
 * as the first argument. Boots the app in-process on the test PostgreSQL exactly as the e2e
 * suite does: the embedded server on EMBEDDED_PG_TEST_PORT, or DATABASE_URL when set.
 */
async function main(out: string): Promise<void> {
  await globalSetup();
  try {
    const t = await createTestApp();
    try {
      const res = await request(t.app.getHttpServer()).get('/api/docs-json').expect(200);
      writeFileSync(out, `${JSON.stringify(res.body, null, 2)}\n`);
    } finally {
      await t.close();
    }
  } finally {
    await globalTeardown();
  }
}

const out = process.argv[2];
if (!out) throw new Error('usage: write-document.ts <output.json>');
main(out).catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
