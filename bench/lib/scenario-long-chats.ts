import type { Client } from 'pg';
import { measured, side, type HttpConfig } from './scenarios-http';
import type { BenchEnv } from './setup';
import { round } from './stats';
import { check, type ScenarioResult } from './types';

const CHATS = 50;
const MESSAGES = 500;

/** 50 chats of 500 messages of 2 KB each (about 50 MB of history) for `userId`. */
async function seedLongChats(db: Client, userId: string): Promise<void> {
  await db.query(
    `INSERT INTO chats (title, "userId", "createdAt", "updatedAt")
     SELECT 'Long chat ' || i, $1, now() - make_interval(hours => i), now() - make_interval(mins => i)
     FROM generate_series(1, $2::int) AS i`,
    [userId, CHATS],
  );
  await db.query(
    `INSERT INTO messages ("chatId", "userId", role, content, "createdAt")
     SELECT c.id, CASE WHEN j % 2 = 1 THEN $1::uuid END,
       CASE WHEN j % 2 = 1 THEN 'USER' ELSE 'ASSISTANT' END,
       repeat(md5(c.id::text || j), 64), c."createdAt" + make_interval(secs => j)
     FROM chats c CROSS JOIN generate_series(1, $2::int) AS j
     WHERE c."userId" = $1`,
    [userId, MESSAGES],
  );
}

/**
 * 8) GET /api/chats for a user with a long history (50 chats × 500 messages of 2 KB) against the
 * same call for the user of (2) (50 chats × 20 short messages): with each chat's latest 20
 * messages only (issue 20 §4), the answer's size and time follow the page, not the history.
 */
export async function longChatsScenario(env: BenchEnv, cfg: HttpConfig): Promise<ScenarioResult> {
  const res = await fetch(`${env.serviceOrigin}/api/auth/signup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'bench-long@example.com', password: 'bench password 1' }),
  });
  if (res.status !== 201) throw new Error(`sign-up answered ${res.status}`);
  const { user, accessToken } = (await res.json()) as { user: { id: string }; accessToken: string };
  await seedLongChats(env.db, user.id);
  const common = {
    url: `${env.serviceOrigin}/api/chats`,
    connections: cfg.connections,
    durationS: cfg.durationS,
    cpuPid: env.service.pid,
  };
  const short = await measured(cfg, { ...common, tokens: [env.chatsUser.token] });
  const long = await measured(cfg, { ...common, tokens: [accessToken] });
  return {
    id: 8,
    name: `GET /api/chats, ${CHATS} chats × ${MESSAGES} messages of 2 KB vs ${env.seeded.chats} chats × ${env.seeded.messages / env.seeded.chats} short ones`,
    measured: side('long history', long),
    baseline: side('short history (2)', short),
    ratio: round(long.rps / short.rps, 3),
    ratioOf: 'req/s',
    checks: [
      check('answer size, long history', long.bytesPerResponse, 'bytes'),
      check('answer size, short history', short.bytesPerResponse, 'bytes'),
      check('history behind the long answer', CHATS * MESSAGES * 2048, 'bytes'),
      check('errors (non-2xx, socket, timeouts)', long.non2xx + long.errors + long.timeouts, '', {
        kind: 'max',
        value: 0,
      }),
    ],
  };
}
