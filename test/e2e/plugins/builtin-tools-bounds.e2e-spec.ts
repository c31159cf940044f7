import http from 'node:http';
import { ledgerOf, newUser, type TestUser } from '../../support/factories';
import { startProviders, type Providers } from '../../support/providers';
import { parseSse } from '../../support/sse';
import { createTestApp, type TestApp } from '../../support/test-app';
import { portOf } from '../../support/uploads';

const MB = 1024 * 1024;

describe('Built-in tools run bounded: the worst inputs fail the call, never the service', () => {
  let t: TestApp;
  let p: Providers;
  let port: number;
  let u: TestUser;
  // The service's memory before the worst inputs, and the most seen while they ran.
  let base: NodeJS.MemoryUsage;
  const peak = { rss: 0, heapUsed: 0 };

  beforeAll(async () => {
    p = await startProviders();
    t = await createTestApp({
      ...p.env,
      BUILTIN_TOOL_TIMEOUT_MS: '5000',
      BUILTIN_TOOL_WORKERS: '1',
    });
    port = await portOf(t.app);
    u = await newUser(t, { credits: 100_000 });
    // The calculator's worker started and warm before measuring.
    expect((await turn('calculator', { expression: '2 + 2' })).result).toMatchObject({ ok: true });
    base = process.memoryUsage();
  });
  afterAll(async () => {
    await t.close();
    await p.stop();
  });

  const charges = async (): Promise<number> =>
    (
      await t.db.query(
        `SELECT count(*)::int AS n FROM credit_transactions WHERE "userId" = $1 AND type = 'CONSUMPTION'`,
        [u.user.id],
      )
    )[0].n;
  const sample = () => {
    const m = process.memoryUsage();
    peak.rss = Math.max(peak.rss, m.rss);
    peak.heapUsed = Math.max(peak.heapUsed, m.heapUsed);
  };

  /** GET /health/live over its own connection; resolves with the status once answered. */
  const live = () =>
    new Promise<number>((resolve, reject) =>
      http
        .get({ host: '127.0.0.1', port, path: '/health/live' }, (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        })
        .on('error', reject),
    );

  /**
   * One streamed turn in which the model calls `tool` with `args`, then answers. /health/live is
   * asked as soon as the `tool_call` event arrives; `order` lists the events as they happened
   * ('tool_call', 'health', 'tool_result', 'done').
   */
  async function turn(tool: string, args: unknown) {
    p.openai.reset();
    p.openai.script = [{ toolCalls: [{ name: tool, arguments: args as never }] }, { text: 'Ok.' }];
    const order: string[] = [];
    let result: any;
    let done: any;
    let health: Promise<number> | undefined;
    await new Promise<void>((resolve, reject) => {
      const req = http.request(
        {
          host: '127.0.0.1',
          port,
          path: '/api/ai/stream',
          method: 'POST',
          headers: { ...u.auth, accept: 'text/event-stream', 'content-type': 'application/json' },
        },
        (res) => {
          let buffered = '';
          res.on('data', (chunk: Buffer) => {
            buffered += chunk.toString();
            const frames = buffered.split('\n\n');
            buffered = frames.pop()!;
            for (const [name, data] of parseSse(frames.join('\n\n') + '\n\n').events) {
              sample();
              if (name === 'tool_call' && !health) {
                health = live().then((status) => {
                  order.push('health');
                  sample();
                  return status;
                });
              }
              if (name === 'tool_result') result = data;
              if (name === 'done') done = data;
              if (['tool_call', 'tool_result', 'done'].includes(name)) order.push(name);
            }
          });
          res.on('end', resolve);
        },
      );
      req.on('error', reject);
      req.end(
        JSON.stringify({
          modelId: 'gpt-4o-mini',
          plugins: ['calculator', 'current_time'],
          messages: [{ role: 'user', content: 'Compute it.' }],
        }),
      );
    });
    const status = await health;
    return { order, result, done, status };
  }

  // Inputs that would hold the event loop or the heap, refused before running.
  it.each([
    ['resize, then a matrix product', 'a=resize([1],[240,240],1); size(a*a)', /resize is not/],
    ['a 5000 x 5000 matrix', 'size(resize([1],[5000,5000]))', /Function size is not available/],
    ['zeros', 'zeros(3000, 3000)', /Function zeros is not available/],
    ['a matrix literal', '[[1,2],[3,4]] * [[1,2],[3,4]]', /Matrices are not available/],
    ['indexed assignment', 'a = [1, 2]; a[1] = 2', /no indexes/],
    ['a recursive function', 'f(x) = f(x - 1) * x; f(100000)', /Defining functions/],
    ['a factorial', '1000000000!', /operator ! is not available/],
    ['gamma', 'gamma(10^9)', /Function gamma is not available/],
    ['a range', '1:100000000', /Ranges/],
    ['a tower of powers', '10^10^10^10', /not a finite number/],
    ['500 nested parentheses', '('.repeat(499) + '1' + ')'.repeat(499), /Cannot evaluate/],
    ['a long string', '"' + 'a'.repeat(990) + '"', /Only numbers/],
    ['10,000 characters', '1+'.repeat(5000) + '1', /longer than 1000 characters/],
  ])('calculator: %s is refused', async (_, expression, message) => {
    const { result, status, order } = await turn('calculator', { expression });
    expect(result).toMatchObject({ name: 'calculator', ok: false, summary: expect.any(String) });
    expect(result.summary).toMatch(message);
    expect(status).toBe(200);
    expect(order).toContain('done');
  });

  // Allowed, and cheap however large: BigNumber keeps 64 digits and an exponent.
  it.each([
    ['2^1e9', '2^1e9', /^4\.6129760011690693931\d+e\+301029995$/],
    ['10^10^10', '10^10^10', /^1e\+10000000000$/],
    ['200 nested parentheses', '('.repeat(200) + '1' + ')'.repeat(200), /^1$/],
    ['a 990-digit number', '9'.repeat(990) + ' + 1', /^1e\+990$/],
  ])('calculator: %s is answered', async (_, expression, value) => {
    const { result, status } = await turn('calculator', { expression });
    expect(result).toMatchObject({ ok: true });
    // What the model is told: the value alone.
    expect(p.openai.requests[1].body.messages[2].content).toMatch(value);
    expect(status).toBe(200);
  });

  // Allowed expressions that would compute for minutes: stopped at BUILTIN_TOOL_TIMEOUT_MS, the
  // service answering meanwhile, the loop going on, both model calls charged.
  it.each(['sinh(10^15)', 'tanh(10^7)', 'x = cosh(10^6); x * 2'])(
    'calculator: %s runs in its worker until stopped; /health/live answers first',
    async (expression) => {
      const before = await charges();
      const { order, result, done, status } = await turn('calculator', { expression });
      expect(order).toEqual(['tool_call', 'health', 'tool_result', 'done']);
      expect(status).toBe(200);
      expect(result).toMatchObject({ ok: false });
      expect(result.summary).toMatch(/The calculation was stopped: it ran longer than 5000 ms/);
      expect(done).toMatchObject({ modelCalls: 2, stopReason: 'stop' });
      const ledger = await ledgerOf(t, u.user.id);
      expect(ledger.credits).toBe(ledger.ledgerSum);
      expect((await charges()) - before).toBe(2);
      // The next calculation gets a fresh worker.
      expect((await turn('calculator', { expression: '1 + 1' })).result).toMatchObject({
        ok: true,
        summary: '1 + 1 = 2',
      });
    },
  );

  it.each([
    [{ timeZone: 'A'.repeat(10_000) }, /longer than 64 characters/],
    [{ timeZone: 'x'.repeat(64) }, /Unknown time zone/],
    [{ timeZone: '../../../../etc/passwd' }, /Unknown time zone/],
    [{ timeZone: { deep: [[[[[[[[[['UTC']]]]]]]]]] } }, /must be a string/],
    [{ timeZone: 1e300 }, /must be a string/],
    [Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`k${i}`, i])), /Unknown argument/],
  ])('current_time: absurd arguments are refused (%#)', async (args, message) => {
    const { result, status } = await turn('current_time', args);
    expect(result).toMatchObject({ name: 'current_time', ok: false });
    expect(result.summary).toMatch(message);
    expect(status).toBe(200);
  });

  it("the service's memory did not grow with the worst inputs (they ran elsewhere)", () => {
    expect(peak.heapUsed - base.heapUsed).toBeLessThan(100 * MB);
    expect(peak.rss - base.rss).toBeLessThan(100 * MB);
  });
});
