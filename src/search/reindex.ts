import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { AppModule } from '../app.module';
import { StartupError } from '../common/errors/startup-error';
import { stopEmbeddedDatabase } from '../database/database.module';
import { SearchIndexer } from './search-indexer.service';

/**
 * `npm run search:reindex` (or `node dist/src/search/reindex.js`): queues every chat with a
 * message that has no vector yet, for the running instances' workers (a backfill). Uses
 * the service's configuration (EMBEDDINGS_MODEL must be set); with the embedded PostgreSQL, run
 * it while the service is stopped.
 */
async function reindex(): Promise<void> {
  const app = await NestFactory.createApplicationContext(AppModule.forRoot(), {
    logger: ['error', 'warn'],
    abortOnError: false,
  });
  try {
    const chats = await app.get(SearchIndexer).backfill();
    console.log(`Queued ${chats} chat(s) for indexing.`);
  } finally {
    await app.close();
    await stopEmbeddedDatabase();
  }
}

reindex().catch((err: unknown) => {
  console.error(err instanceof StartupError || err instanceof Error ? err.message : err);
  process.exit(1);
});
