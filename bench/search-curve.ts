import 'reflect-metadata';
import { resolve } from 'node:path';
import { DataSource } from 'typeorm';
import { MIGRATIONS_GLOB } from '../src/database/migrations-path';
import { MessageVectorsRepository } from '../src/search/message-vectors.repository';
import { startBenchDatabase } from './lib/db';
import { freePort } from './lib/processes';
import { percentile, round } from './lib/stats';

/**
 * `npm run bench:search-curve`: the exact-cosine curve of semantic search (docs/search.md).
 * Starts its own embedded PostgreSQL (.data/pg-search-curve), migrates, and for a growing number
 * of one user's messages with vectors of SEARCH_CURVE_DIMS dimensions (default 256, the
 * EMBEDDINGS_DIMENSIONS default) times MessageVectorsRepository.nearest, the statement the
 * service runs (top 50, access check included). Prints a markdown table.
 */
const DIMS = Number(process.env.SEARCH_CURVE_DIMS ?? 256);
const SIZES = (process.env.SEARCH_CURVE_SIZES ?? '1000,5000,10000,25000,50000,100000')
  .split(',')
  .map(Number);
const RUNS = 15;
const PER_CHAT = 200;

async function main(): Promise<void> {
  const { server, url } = await startBenchDatabase(
    resolve(__dirname, '..', '.data', 'pg-search-curve'),
    await freePort(),
  );
  const ds = new DataSource({ type: 'postgres', url, migrations: [MIGRATIONS_GLOB] });
  await ds.initialize();
  try {
    await ds.runMigrations();
    const [{ id: userId }] = await ds.query(
      `INSERT INTO users (email) VALUES ('curve@example.com') RETURNING id`,
    );
    const vectors = new MessageVectorsRepository(ds);
    const rows: string[] = [
      '| messages | p50 ms | p95 ms | ms per 1 000 vectors (p50) |',
      '|---:|---:|---:|---:|',
    ];
    let have = 0;
    for (const size of SIZES) {
      const chats = Math.ceil((size - have) / PER_CHAT);
      // Chats of PER_CHAT messages, each with a random vector (correlated with the row, so
      // PostgreSQL draws a new one per message).
      await ds.query(
        `WITH c AS (
           INSERT INTO chats (title, "userId") SELECT 'c' || i, $1 FROM generate_series(1, $2::int) i
           RETURNING id
         ), m AS (
           INSERT INTO messages ("chatId", "userId", role, content)
           SELECT c.id, $1, 'USER', 'message ' || j FROM c, generate_series(1, $3::int) j
           RETURNING id, "chatId", seq
         )
         INSERT INTO message_vectors ("messageId", "chatId", model, embedding)
         SELECT m.id, m."chatId", 'curve',
           ARRAY(SELECT (random() - 0.5)::real FROM generate_series(1, $4::int + 0 * m.seq))
         FROM m`,
        [userId, chats, PER_CHAT, DIMS],
      );
      have += chats * PER_CHAT;
      await ds.query('VACUUM ANALYZE message_vectors');
      const times: number[] = [];
      for (let i = 0; i < RUNS + 3; i++) {
        const q = Array.from({ length: DIMS }, () => Math.random() - 0.5);
        const t0 = performance.now();
        await vectors.nearest(userId, 'curve', q, 50);
        if (i >= 3) times.push(performance.now() - t0);
      }
      const p50 = percentile(times, 50);
      rows.push(
        `| ${have} | ${round(p50, 1)} | ${round(percentile(times, 95), 1)} | ${round((p50 / have) * 1000, 2)} |`,
      );
      process.stderr.write(`[curve] ${have} messages: p50 ${round(p50, 1)} ms\n`);
    }
    process.stdout.write(
      `Exact cosine, ${DIMS} dimensions, top 50, one user:\n\n${rows.join('\n')}\n`,
    );
  } finally {
    await ds.destroy();
    await server.stop();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
