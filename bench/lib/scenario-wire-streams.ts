import { performance } from 'node:perf_hooks';
import { resetDailyUsage } from './db';
import type { BenchEnv } from './setup';
import { round, summarize, type Summary } from './stats';
import { keepAliveAgent, lostChunks, pool } from './streams';
import { check, type ScenarioResult, type Side } from './types';
import { type Wire, wireStreamOnce, type WireStreamResult, type WireTarget } from './wire-streams';

export interface WireStreamsConfig {
  /** Streams per wire format, split over `rounds`. */
  perWire: number;
  rounds: number;
  concurrency: number;
  chunks: number;
  chunkDelayMs: number;
}

const PROMPT = 'Tell me a short story.';
const MODEL = 'gpt-4o-mini';

/** The request body of each wire format: the same prompt, model and output limit. */
const BODIES: Record<Wire, { path: string; body: object }> = {
  chat: {
    path: '/v1/chat/completions',
    body: {
      model: MODEL,
      messages: [{ role: 'user', content: PROMPT }],
      max_tokens: 100,
      stream: true,
      stream_options: { include_usage: true },
    },
  },
  responses: {
    path: '/v1/responses',
    body: { model: MODEL, input: PROMPT, max_output_tokens: 100, stream: true },
  },
  messages: {
    path: '/v1/messages',
    body: {
      model: MODEL,
      messages: [{ role: 'user', content: PROMPT }],
      max_tokens: 100,
      stream: true,
    },
  },
};

const LABEL: Record<Wire, string> = {
  chat: '/v1/chat/completions',
  responses: '/v1/responses',
  messages: '/v1/messages',
};

/** One personal API key per AI user (the `ai` scope), as a client of /v1 holds it. */
async function apiKeys(env: BenchEnv): Promise<string[]> {
  return Promise.all(
    env.aiUsers.map(async (u) => {
      const res = await fetch(`${env.serviceOrigin}/api/keys`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${u.token}` },
        body: JSON.stringify({ name: 'bench-wire' }),
      });
      if (res.status !== 201) throw new Error(`POST /api/keys answered ${res.status}`);
      return ((await res.json()) as { key: string }).key;
    }),
  );
}

/** Reply text of `n` distinct, equally long pieces, so a lost or repeated chunk shows. */
function expectedPieces(n: number): string[] {
  return Array.from({ length: n }, (_, i) => `[chunk ${String(i).padStart(3, '0')} of ${n}] `);
}

/**
 * 11) The three streaming wire formats of /v1 side by side in one run, same users (API keys),
 * model, prompt and provider stream: /v1/responses and /v1/messages against
 * /v1/chat/completions, each at `concurrency` connections, in interleaved rounds (the order
 * rotating) so all three see the same machine. Reports first-token latency of each and the
 * difference to chat completions, and counts chunks: every stream must carry every piece the
 * provider sent, as that many text delta events, and end with its format's last event.
 */
export async function wireStreamsScenario(
  env: BenchEnv,
  cfg: WireStreamsConfig,
): Promise<ScenarioResult[]> {
  const pieces = expectedPieces(cfg.chunks);
  await env.setReply({ text: pieces.join(''), chunks: cfg.chunks, chunkDelayMs: cfg.chunkDelayMs });
  await resetDailyUsage(
    env.db,
    env.aiUsers.map((u) => u.id),
  );
  const keys = await apiKeys(env);
  const wires: Wire[] = ['chat', 'responses', 'messages'];
  const agents = Object.fromEntries(wires.map((w) => [w, keepAliveAgent()])) as Record<
    Wire,
    WireTarget['agent']
  >;
  let n = 0;
  const target = (wire: Wire): WireTarget => {
    const key = keys[n++ % keys.length];
    return {
      wire,
      origin: env.serviceOrigin,
      path: BODIES[wire].path,
      // Anthropic's clients send x-api-key and anthropic-version; the OpenAI ones a Bearer key.
      headers:
        wire === 'messages'
          ? { 'x-api-key': key, 'anthropic-version': '2023-06-01' }
          : { authorization: `Bearer ${key}` },
      body: BODIES[wire].body,
      agent: agents[wire],
    };
  };

  // Warm-up (not counted), then rounds in rotating order.
  for (const wire of wires)
    await pool(cfg.concurrency, cfg.concurrency, () => wireStreamOnce(target(wire)));
  const results: Record<Wire, WireStreamResult[]> = { chat: [], responses: [], messages: [] };
  const seconds: Record<Wire, number> = { chat: 0, responses: 0, messages: 0 };
  const perRound = Math.ceil(cfg.perWire / cfg.rounds);
  for (let round = 0; round < cfg.rounds; round++) {
    for (let i = 0; i < wires.length; i++) {
      const wire = wires[(round + i) % wires.length];
      const start = performance.now();
      const got = await pool(perRound, cfg.concurrency, () => wireStreamOnce(target(wire)));
      seconds[wire] += (performance.now() - start) / 1000;
      results[wire].push(...got);
    }
  }

  const ok = (rs: WireStreamResult[]) => rs.filter((r) => r.status === 200 && !r.error);
  const ttft: Record<Wire, Summary> = {
    chat: summarize(ok(results.chat).map((r) => r.ttftMs)),
    responses: summarize(ok(results.responses).map((r) => r.ttftMs)),
    messages: summarize(ok(results.messages).map((r) => r.ttftMs)),
  };
  const side = (wire: Wire): Side => {
    const rs = results[wire];
    return {
      label: LABEL[wire],
      rps: round(rs.length / seconds[wire], 1),
      p50: round(ttft[wire].p50),
      p99: round(ttft[wire].p99),
      detail: {
        ttft: ttft[wire],
        total: summarize(ok(rs).map((r) => r.totalMs)),
        firstErrors: rs
          .filter((r) => r.error)
          .slice(0, 3)
          .map((r) => r.error),
      },
    };
  };
  const chunkChecks = (wire: Wire) => {
    const rs = results[wire];
    const lost = rs.reduce(
      (k, r) => k + (r.status === 200 ? lostChunks(pieces, r.text) : pieces.length),
      0,
    );
    return [
      check(`${LABEL[wire]}: chunks lost (of ${rs.length} streams × ${cfg.chunks})`, lost, '', {
        kind: 'max',
        value: 0,
      }),
      check(
        `${LABEL[wire]}: streams with other than ${cfg.chunks} text delta events`,
        rs.filter((r) => r.deltas !== cfg.chunks).length,
        '',
        { kind: 'max', value: 0 },
      ),
      check(
        `${LABEL[wire]}: streams failed or without their last event`,
        rs.filter((r) => r.status !== 200 || r.error || !r.ended).length,
        '',
        { kind: 'max', value: 0 },
      ),
    ];
  };
  const against = (wire: 'responses' | 'messages'): ScenarioResult => ({
    id: 11,
    name:
      `${LABEL[wire]} stream vs /v1/chat/completions stream, API keys, ${cfg.concurrency} connections ` +
      `(${cfg.chunks} chunks ${cfg.chunkDelayMs} ms apart; p50/p99 = time to first token)`,
    measured: side(wire),
    baseline: side('chat'),
    ratio: round(ttft[wire].p50 / ttft.chat.p50, 3),
    ratioOf: 'first token p50',
    checks: [
      check(
        `${LABEL[wire]}: first token p50 − chat completions p50`,
        round(ttft[wire].p50 - ttft.chat.p50),
        'ms',
      ),
      check(
        `${LABEL[wire]}: first token p99 − chat completions p99`,
        round(ttft[wire].p99 - ttft.chat.p99),
        'ms',
      ),
      ...chunkChecks(wire),
      ...(wire === 'responses' ? chunkChecks('chat') : []),
    ],
    notes:
      wire === 'responses'
        ? [
            `${cfg.perWire} streams per format in ${cfg.rounds} interleaved rounds at ` +
              `${cfg.concurrency} connections, same users, model and provider stream`,
          ]
        : [],
  });
  return [against('responses'), against('messages')];
}
