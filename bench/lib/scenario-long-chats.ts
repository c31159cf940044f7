import type { Client } from 'pg';
import { measured, side, type HttpConfig } from './scenarios-http';
import type { BenchEnv } from './setup';
import { round } from './stats';
import { check, type ScenarioResult } from './types';

const CHATS = 50;
const MESSAGES = 500;

/** 50 chats of `messages` messages of 2 KB each for `userId` (500: about 50 MB of history). */
async function seedChats2k(db: Client, userId: string, messages: number): Promise<void> {
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
    [userId, messages],
  );
}

/** A new user with 50 chats of `messages` messages of 2 KB; returns their session token. */
async function userWith(env: BenchEnv, messages: number): Promise<string> {
  const res = await fetch(`${env.serviceOrigin}/api/auth/signup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      email: `bench-history-${messages}@example.com`,
      password: 'bench pw 12',
    }),
  });
  if (res.status !== 201) throw new Error(`sign-up answered ${res.status}`);
  const { user, accessToken } = (await res.json()) as { user: { id: string }; accessToken: string };
  await seedChats2k(env.db, user.id, messages);
  return accessToken;
}

/**
 * 8) GET /api/chats for a user with a long history (50 chats × 500 messages of 2 KB, ~50 MB)
 * against a user with a short one (50 chats × 20 messages of 2 KB): with each chat's latest 20
 * messages only (`?messages=`, default 20), both answers are the same size and take the same time:
 * the cost follows the page, not the history.
 */
export async function longChatsScenario(env: BenchEnv, cfg: HttpConfig): Promise<ScenarioResult> {
  const longToken = await userWith(env, MESSAGES);
  const shortToken = await userWith(env, 20);
  const common = {
    url: `${env.serviceOrigin}/api/chats`,
    connections: cfg.connections,
    durationS: cfg.durationS,
    cpuPid: env.service.pid,
  };
  const short = await measured(cfg, { ...common, tokens: [shortToken] });
  const long = await measured(cfg, { ...common, tokens: [longToken] });
  return {
    id: 8,
    name: `GET /api/chats, ${CHATS} chats × ${MESSAGES} messages of 2 KB vs × 20 of 2 KB`,
    measured: side('500 per chat', long),
    baseline: side('20 per chat', short),
    ratio: round(long.rps / short.rps, 3),
    ratioOf: 'req/s',
    checks: [
      check('answer size, 500 per chat', long.bytesPerResponse, 'bytes'),
      check('answer size, 20 per chat', short.bytesPerResponse, 'bytes'),
      check('history behind the long answer', CHATS * MESSAGES * 2048, 'bytes'),
      check('errors (non-2xx, socket, timeouts)', long.non2xx + long.errors + long.timeouts, '', {
        kind: 'max',
        value: 0,
      }),
    ],
  };
}
