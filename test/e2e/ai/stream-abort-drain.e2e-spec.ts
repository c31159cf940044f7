import { ledgerOf, newUser, type TestUser } from '../../support/factories';
import { startProviders, type Providers } from '../../support/providers';
import { createTestApp, type TestApp } from '../../support/test-app';
import { streamThenLeave } from '../../support/walk-away';
import { waitFor } from '../../support/wait';

/**
 * A stream whose client goes away pays for what the provider produced. ABORT_MODE=drain (the
 * default) keeps reading the upstream until its usage arrives (at most ABORT_DRAIN_MS) and
 * charges it; without usage by then, at least the model's reasoning budget, marked estimated.
 * ABORT_MODE=cancel aborts at once and charges the estimate of what was streamed.
 */

const TEXT = 'one two three four five six seven eight nine ten';
// gpt-5.5: 0.00003 credits a token, a reasoning budget of 2048.
const REASONING_REPLY = {
  text: TEXT,
  chunks: 10,
  usage: {
    prompt_tokens: 20,
    completion_tokens: 3100,
    completion_tokens_details: { reasoning_tokens: 3000 },
  },
};
/** (20 + 3100) × 0.00003 × 1000 = 93.6 → 94 credits. */
const FULL_COST = 94;

type Route = 'stream' | 'chat completions';

interface Entry {
  amount: number;
  description: string;
  promptTokens: number;
  completionTokens: number;
  reasoningTokens: number | null;
}

/** Starts a reply on `route` and leaves once its first bytes arrived. */
async function streamAndLeave(t: TestApp, u: TestUser, route: Route): Promise<void> {
  if (route === 'stream') {
    const body = { modelId: 'gpt-5.5', messages: [{ role: 'user', content: 'Tell me' }] };
    return streamThenLeave(t.app, '/api/ai/stream', u.auth, body);
  }
  const { key } = (await t.http.post('/api/keys').set(u.auth).send({ name: 'k' }).expect(201)).body;
  const body = {
    model: 'gpt-5.5',
    stream: true,
    max_tokens: 100,
    messages: [{ role: 'user', content: 'Tell me' }],
  };
  return streamThenLeave(t.app, '/v1/chat/completions', { Authorization: `Bearer ${key}` }, body);
}

/** The user's one CONSUMPTION entry, once the settlement wrote it (no hold left open). */
async function settledEntry(t: TestApp, u: TestUser): Promise<Entry> {
  const query = () =>
    t.db.query(
      `SELECT amount, description, "promptTokens", "completionTokens", "reasoningTokens"
       FROM credit_transactions WHERE "userId" = $1 AND type = 'CONSUMPTION'`,
      [u.user.id],
    );
  const settled = async () => {
    const [holds] = await t.db.query(
      'SELECT count(*)::int AS n FROM credit_holds WHERE "userId" = $1',
      [u.user.id],
    );
    return holds.n === 0 && (await query()).length > 0;
  };
  expect(await waitFor(settled)).toBe(true);
  const entries: Entry[] = await query();
  expect(entries).toHaveLength(1);
  const ledger = await ledgerOf(t, u.user.id);
  expect(ledger.credits).toBe(ledger.ledgerSum);
  expect(ledger.credits).toBeGreaterThanOrEqual(0);
  return entries[0];
}

function useApp(env: Record<string, string>): { t: TestApp; p: Providers } {
  const bed = {} as { t: TestApp; p: Providers };
  beforeAll(async () => {
    bed.p = await startProviders();
    bed.t = await createTestApp({ ...bed.p.env, ...env });
  });
  afterAll(async () => {
    await bed.t.close();
    await bed.p.stop();
  });
  beforeEach(() => bed.p.reset());
  return bed;
}

describe('ABORT_MODE=drain: the usage the provider reported at the end', () => {
  // A bound far above the reply's length: the drain ends with the reply, not the bound.
  const bed = useApp({ ABORT_DRAIN_MS: '120000' });

  it.each<Route>(['stream', 'chat completions'])(
    '%s: cut by the client after its first words, charged the full usage with its reasoning',
    async (route) => {
      const { t, p } = bed;
      const u = await newUser(t);
      // Each word 100 ms apart: the client leaves after the first, the provider goes on.
      p.openai.reply = { ...REASONING_REPLY, chunkDelayMs: 100 };
      await streamAndLeave(t, u, route);
      const entry = await settledEntry(t, u);
      expect(entry).toEqual({
        amount: -FULL_COST,
        description: expect.stringContaining('client left; usage read to the end'),
        promptTokens: 20,
        completionTokens: 3100,
        reasoningTokens: 3000,
      });
      expect(entry.description).not.toMatch(/estimated/);
      // The upstream answered to its end: it was never aborted.
      expect(p.openai.requests).toHaveLength(1);
      expect(p.openai.requests[0].aborted).toBe(false);
      expect(p.openai.requests[0].textChunksSent).toBe(10);
      if (route === 'stream') {
        const [saved] = await t.db.query(
          `SELECT m.content FROM messages m JOIN chats c ON c.id = m."chatId"
           WHERE c."userId" = $1 AND m.role = 'ASSISTANT'`,
          [u.user.id],
        );
        expect(saved.content).toBe(TEXT);
      }
    },
  );
});

describe('ABORT_MODE=drain without usage within ABORT_DRAIN_MS: at least the reasoning budget', () => {
  // The upstream never sends its usage: the drain gives up after its bound.
  const bed = useApp({ ABORT_DRAIN_MS: '50' });

  it.each<Route>(['stream', 'chat completions'])(
    '%s: charges the streamed estimate plus the budget of 2048 reasoning tokens, marked estimated',
    async (route) => {
      const { t, p } = bed;
      const u = await newUser(t);
      p.openai.reply = { ...REASONING_REPLY, stallAfterChunks: 2 };
      await streamAndLeave(t, u, route);
      expect(await waitFor(() => p.openai.requests[0]?.aborted === true)).toBe(true);
      const entry = await settledEntry(t, u);
      expect(entry.description).toMatch(/estimated: stream interrupted; .*reasoning budget 2048/);
      expect(entry.reasoningTokens).toBe(2048);
      expect(entry.completionTokens).toBeGreaterThan(2048);
      const tokens = entry.promptTokens + entry.completionTokens;
      expect(entry.amount).toBe(-Math.ceil(tokens * 0.03));
      if (route === 'stream') {
        const [saved] = await t.db.query(
          `SELECT m.content FROM messages m JOIN chats c ON c.id = m."chatId"
           WHERE c."userId" = $1 AND m.role = 'ASSISTANT'`,
          [u.user.id],
        );
        expect(saved.content.length).toBeGreaterThan(0);
        expect(TEXT.startsWith(saved.content)).toBe(true);
      }
    },
  );
});

describe('ABORT_MODE=cancel: the upstream is aborted at once, the streamed part estimated', () => {
  const bed = useApp({ ABORT_MODE: 'cancel', ABORT_DRAIN_MS: '120000' });

  it('stream: aborts with the client, charges the prompt and streamed text only', async () => {
    const { t, p } = bed;
    const u = await newUser(t);
    // Silent after two words: only the service's abort ends the request, long before the bound.
    p.openai.reply = { ...REASONING_REPLY, stallAfterChunks: 2 };
    await streamAndLeave(t, u, 'stream');
    expect(await waitFor(() => p.openai.requests[0]?.aborted === true)).toBe(true);
    const entry = await settledEntry(t, u);
    expect(entry.description).toMatch(/\(estimated: stream interrupted\)$/);
    expect(entry.reasoningTokens).toBeNull();
    expect(entry.completionTokens).toBeLessThan(20);
    expect(entry.amount).toBe(-1);
    const [saved] = await t.db.query(
      `SELECT m.content FROM messages m JOIN chats c ON c.id = m."chatId"
       WHERE c."userId" = $1 AND m.role = 'ASSISTANT'`,
      [u.user.id],
    );
    expect(TEXT.startsWith(saved.content)).toBe(true);
  });
});
