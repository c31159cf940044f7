import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { newUser } from '../../support/factories';
import {
  booksOf,
  chargedSince,
  type Gateway,
  keyFor,
  settledBooksOf,
  startGateway,
} from './gateway-clients.helpers';

// promptfoo keeps its state (database, cache, logs) under PROMPTFOO_CONFIG_DIR: a folder of this
// file, removed at the end; no telemetry, no update check, no response cache.
const configDir = mkdtempSync(join(tmpdir(), 'promptfoo-'));
Object.assign(process.env, {
  PROMPTFOO_CONFIG_DIR: configDir,
  PROMPTFOO_DISABLE_TELEMETRY: '1',
  PROMPTFOO_DISABLE_UPDATE: '1',
  PROMPTFOO_CACHE_ENABLED: 'false',
  PROMPTFOO_DISABLE_REMOTE_GENERATION: '1',
});

/**
 * promptfoo, with its own defaults, evaluating three prompts through its `openai:chat:<model>`
 * provider pointed at /v1 (`apiBaseUrl` and `apiKey` in the provider's config). Its default
 * `max_tokens: 1024` must be accepted; every prompt is one model call and one CONSUMPTION entry.
 */
describe('promptfoo against /v1', () => {
  let g: Gateway;
  beforeAll(async () => {
    g = await startGateway();
  });
  afterAll(async () => {
    await g.close();
    rmSync(configDir, { recursive: true, force: true });
  });

  it('passes a 3-prompt eval through its Node API; the books show three calls', async () => {
    const { default: promptfoo } = await import('promptfoo');
    const u = await newUser(g.t);
    const { key } = await keyFor(g.t, u);
    const before = await booksOf(g.t, u.user.id);
    g.p.openai.reply = { text: 'Bonjour, the capital is Paris.' };

    const evaluation = await promptfoo.evaluate(
      {
        prompts: [
          'Translate "hello" into {{language}}.',
          'What is the capital of {{country}}?',
          'Answer in one line: {{language}} greeting and the capital of {{country}}.',
        ],
        providers: [
          { id: 'openai:chat:gpt-4o-mini', config: { apiBaseUrl: g.baseURL, apiKey: key } },
        ],
        tests: [
          {
            vars: { language: 'French', country: 'France' },
            assert: [{ type: 'icontains', value: 'paris' }],
          },
        ],
      },
      { cache: false, maxConcurrency: 3 },
    );
    const summary = await evaluation.toEvaluateSummary();

    expect(summary.stats).toEqual(
      expect.objectContaining({ successes: 3, failures: 0, errors: 0 }),
    );
    expect(summary.results.map((r) => r.response?.output)).toEqual(
      Array(3).fill('Bonjour, the capital is Paris.'),
    );
    // promptfoo's defaults reached the provider through us: max_tokens 1024 among them.
    expect(g.p.openai.requests).toHaveLength(3);
    for (const r of g.p.openai.requests) {
      expect(r.body).toEqual(expect.objectContaining({ model: 'gpt-4o-mini', max_tokens: 1024 }));
    }
    expect(summary.stats.tokenUsage.total).toBe(3 * 30);
    chargedSince(before, await settledBooksOf(g.t, u.user.id), 3);
  });
});
