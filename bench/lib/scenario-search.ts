import type { Client } from 'pg';
import type { BenchEnv } from './setup';
import { percentile, round } from './stats';
import { check, type ScenarioResult, type Side } from './types';

const CHATS = 500;
const PER_CHAT = 200;
const MESSAGES = CHATS * PER_CHAT; // 100 000
const WARMUP = 20;
const REQUESTS = 300;

/** 300 everyday English words and 30 Chinese phrases the seeded messages are made of. */
const WORDS = (
  'time year people way day man thing woman life child world school state family student group ' +
  'country problem hand part place case week company system program question work government ' +
  'number night point home water room mother area money story fact month lot right study book eye ' +
  'job word business issue side kind head house service friend father power hour game line end ' +
  'member law car city community name president team minute idea kid body information back parent ' +
  'face others level office door health person art war history party result change morning reason ' +
  'research girl guy moment air teacher force education foot boy age policy process music market ' +
  'sense nation plan college interest death experience effect use class control care field ' +
  'development role effort rate heart drug show leader light voice wife police mind price report ' +
  'decision son view relationship town road arm difference value building action model season ' +
  'society tax director position player record paper space ground form event official matter center ' +
  'couple site project activity star table need court oil situation cost industry figure street ' +
  'image phone data picture practice piece land product doctor wall patient worker news test movie ' +
  'north love support technology step baby computer type attention film tree source organization ' +
  'hair window evidence population site ball goal network database index query server cache ' +
  'running runs ran deploy release bug feature design garden travel recipe holiday hotel flight ' +
  'budget invoice contract meeting schedule weather coffee dinner lunch breakfast train ticket ' +
  'camera photo video screen keyboard mouse battery charger cable router signal bridge river lake ' +
  'mountain forest island beach desert ocean storm snow rain wind cloud sun moon planet rocket ' +
  'engine wheel brake gear fuel trip journey museum gallery concert theater library'
).split(' ');
const CHINESE = (
  '我们的数据库很慢 请帮我写一封邮件 明天的天气怎么样 这个函数有一个错误 我想学习机器学习 ' +
  '推荐一本好书 怎么做红烧肉 北京有什么好玩的 帮我翻译这段话 服务器的内存不够 索引可以加快查询 ' +
  '周末去爬山 这个问题很难 他们在开会 下周的计划 我的电脑坏了 如何提高效率 项目的进度 ' +
  '旅行的预算 买一张火车票 咖啡和茶 健康的饮食 运动的好处 写一个测试 部署到生产环境 ' +
  '缓存的失效 网络很慢 手机没电了 照片太大了 会议改到下午'
).split(' ');

/** Queries by kind: a common word, two words, a stemmed form, Chinese, mixed. */
const QUERIES = [
  'database',
  'coffee meeting',
  'running',
  '数据库',
  'server 内存',
  'mountain lake trip',
  'invoice',
  '火车票',
];

/** One user with 500 chats × 200 messages of ~20 words (1 in 5 with a Chinese phrase). */
async function seed(db: Client, userId: string): Promise<void> {
  await db.query(
    `INSERT INTO chats (title, "userId", "createdAt", "updatedAt")
     SELECT 'Chat ' || i, $1, now() - make_interval(hours => i), now() - make_interval(mins => i)
     FROM generate_series(1, $2::int) AS i`,
    [userId, CHATS],
  );
  await db.query(
    `INSERT INTO messages ("chatId", "userId", role, content, "createdAt")
     SELECT c.id, CASE WHEN j % 2 = 1 THEN $1::uuid END,
       CASE WHEN j % 2 = 1 THEN 'USER' ELSE 'ASSISTANT' END,
       (SELECT string_agg(($3::text[])[1 + (abs(hashtext(c.id::text || j || '/' || k)) % cardinality($3::text[]))], ' ')
        FROM generate_series(1, 20) AS k)
       || CASE WHEN abs(hashtext(c.id::text || j)) % 5 = 0
            THEN ' ' || ($4::text[])[1 + (abs(hashtext(j || c.id::text)) % cardinality($4::text[]))]
            ELSE '' END,
       c."createdAt" + make_interval(secs => j)
     FROM chats c CROSS JOIN generate_series(1, $2::int) AS j
     WHERE c."userId" = $1`,
    [userId, PER_CHAT, WORDS, CHINESE],
  );
  await db.query('ANALYZE messages');
}

/** `REQUESTS` sequential GETs (one user searching), after `WARMUP` unmeasured ones. */
async function sequential(urls: string[], token: string): Promise<{ ms: number[]; hits: number }> {
  const ms: number[] = [];
  let hits = 0;
  for (let i = 0; i < WARMUP + REQUESTS; i++) {
    const url = urls[i % urls.length];
    const t0 = performance.now();
    const res = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
    const body = (await res.json()) as { data?: unknown[] };
    const elapsed = performance.now() - t0;
    if (res.status !== 200) throw new Error(`${url} answered ${res.status}`);
    if (i >= WARMUP) {
      ms.push(elapsed);
      hits += body.data?.length ?? 0;
    }
  }
  return { ms, hits };
}

const sideOf = (label: string, ms: number[], detail: Record<string, unknown>): Side => ({
  label,
  p50: round(percentile(ms, 50), 3),
  p99: round(percentile(ms, 99), 3),
  detail: { p95: round(percentile(ms, 95), 3), ...detail },
});

/**
 * 9) GET /api/search in keyword mode for a user with 100 000 messages (target: p95 < 100 ms on
 * the embedded PostgreSQL): sequential requests cycling through common, multi-word, stemmed,
 * Chinese and mixed queries, 20 results each. Baseline: GET /api/chats (20 chats, no messages)
 * of the same user, the cheapest read of that history.
 */
export async function searchScenario(env: BenchEnv): Promise<ScenarioResult> {
  const res = await fetch(`${env.serviceOrigin}/api/auth/signup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'bench-search@example.com', password: 'bench pw 12' }),
  });
  if (res.status !== 201) throw new Error(`sign-up answered ${res.status}`);
  const { user, accessToken } = (await res.json()) as { user: { id: string }; accessToken: string };
  await seed(env.db, user.id);
  const searchUrls = QUERIES.map(
    (q) => `${env.serviceOrigin}/api/search?mode=keyword&limit=20&q=${encodeURIComponent(q)}`,
  );
  const search = await sequential(searchUrls, accessToken);
  const chats = await sequential(
    [`${env.serviceOrigin}/api/chats?limit=20&messages=0`],
    accessToken,
  );
  const p95 = percentile(search.ms, 95);
  return {
    id: 9,
    name: `GET /api/search keyword, one user with ${MESSAGES} messages, ${REQUESTS} sequential`,
    measured: sideOf('search', search.ms, { queries: QUERIES, results: search.hits }),
    baseline: sideOf('GET /api/chats', chats.ms, {}),
    ratio: round(p95 / percentile(chats.ms, 95), 3),
    ratioOf: 'p95 latency',
    checks: [
      check('search p95', round(p95, 3), 'ms', { kind: 'max', value: 100 }),
      check('results per search', round(search.hits / REQUESTS, 1), '', { kind: 'min', value: 1 }),
    ],
  };
}
