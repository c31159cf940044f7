import { resolve } from 'node:path';
import { load } from './lib/load';
import { listeningPort, spawnNode, stopAllChildren } from './lib/processes';
import { ROOT } from './lib/setup';

/**
 * `npm run bench:transport`: the bare proxy's CPU per request with the `openai` SDK on Node's
 * global fetch (its default) against undici's own fetch with a tuned keep-alive Agent, both at
 * 50 connections on the bench's provider (delay 0), alternated `BENCH_ROUNDS` times (3).
 */
async function main(): Promise<void> {
  const tsNode = (file: string) => ['-r', 'ts-node/register/transpile-only', resolve(ROOT, file)];
  const env = { PATH: process.env.PATH, HOME: process.env.HOME };
  const provider = spawnNode(
    'provider',
    tsNode('bench/servers/provider-server.ts'),
    env,
    '/dev/null',
  );
  const providerUrl = `http://127.0.0.1:${await listeningPort(provider)}/v1`;
  const proxies = await Promise.all(
    ['global fetch', 'agent'].map(async (transport) => {
      const child = spawnNode(
        `proxy (${transport})`,
        tsNode('bench/servers/bare-proxy.ts'),
        { ...env, PROVIDER_URL: providerUrl, PROXY_TRANSPORT: transport },
        '/dev/null',
      );
      return { transport, child, origin: `http://127.0.0.1:${await listeningPort(child)}` };
    }),
  );
  const body = JSON.stringify({
    modelId: 'gpt-4o-mini',
    messages: [{ role: 'user', content: 'Say hello in five words.' }],
    maxTokens: 100,
  });
  const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
  for (let round = 1; round <= rounds; round++) {
    for (const p of round % 2 ? proxies : [...proxies].reverse()) {
      const r = await load({
        url: `${p.origin}/api/ai/generate`,
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
        connections: 50,
        durationS: 8,
        warmupS: 2,
        cpuPid: p.child.pid,
      });
      console.log(
        `round ${round} ${p.transport.padEnd(12)} ${r.rps} req/s, ${r.cpuMsPerRequest} ms CPU/request, ` +
          `p50 ${r.p50} ms, errors ${r.non2xx + r.errors + r.timeouts}`,
      );
    }
  }
  await stopAllChildren();
}

main().catch(async (err) => {
  console.error(err);
  await stopAllChildren();
  process.exit(1);
});
