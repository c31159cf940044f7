import type { ModelDescriptor } from '../../models/model-catalogue';
import type {
  RoutedModel,
  UpstreamAdmission,
  UpstreamOutcome,
  UpstreamRouting,
  UpstreamTarget,
} from '../../upstreams/upstream-router.types';
import {
  type GenerateRequest,
  type ModelProvider,
  ProviderError,
  type StreamChunk,
  UpstreamsBusyError,
} from '../providers/model-provider';
import { isRetryable } from './retry';
import { RoutedProvider } from './routed-provider';
import { outcomeOf } from './upstream-attempts';

/**
 * A router of fixed upstreams per model that records the reports and the tokens counted;
 * upstreams in `atCeiling` are refused by `admit` until the minute ending at `resetsAt`.
 */
class ListRouter implements UpstreamRouting {
  reports: [string, UpstreamOutcome['kind'], number | undefined][] = [];
  tokens: [string, number][] = [];
  atCeiling = new Map<string, Date>();
  constructor(private readonly upstreams: Record<string, string[]>) {}
  admit(target: UpstreamTarget): UpstreamAdmission {
    const resetsAt = this.atCeiling.get(target.id);
    return resetsAt ? { admitted: false, resetsAt } : { admitted: true };
  }
  used(target: UpstreamTarget, tokens: number): void {
    this.tokens.push([target.id, tokens]);
  }
  candidates(model: RoutedModel): Promise<UpstreamTarget[]> {
    return Promise.resolve(
      (this.upstreams[model.id] ?? []).map((id) => ({
        id,
        name: id,
        provider: 'openai' as const,
        upstreamModel: `${model.id}@${id}`,
        version: '1',
      })),
    );
  }
  report(target: UpstreamTarget, outcome: UpstreamOutcome): Promise<void> {
    this.reports.push([
      target.id,
      outcome.kind,
      outcome.kind === 'retryable' ? outcome.retryAfterMs : undefined,
    ]);
    return Promise.resolve();
  }
}

/** An adapter answering per upstream id: an error to throw, or text (streamed in two chunks). */
class ScriptedAdapter implements ModelProvider {
  calls: string[] = [];
  constructor(private readonly script: Record<string, ProviderError | 'cut' | string>) {}
  generate(_req: GenerateRequest, target?: UpstreamTarget) {
    const id = target?.id ?? 'env';
    this.calls.push(target?.upstreamModel ?? 'env');
    const step = this.script[id];
    if (step instanceof ProviderError) return Promise.reject(step);
    return Promise.resolve({ text: String(step), usage: { promptTokens: 1, completionTokens: 1 } });
  }
  async *stream(req: GenerateRequest, target?: UpstreamTarget): AsyncGenerator<StreamChunk> {
    const id = target?.id ?? 'env';
    this.calls.push(target?.upstreamModel ?? 'env');
    const step = this.script[id];
    if (step instanceof ProviderError) throw step;
    yield { text: 'first ' };
    if (step === 'cut') throw new ProviderError('openai', undefined, 'stream broke');
    yield { text: String(step), usage: { promptTokens: 1, completionTokens: 2 } };
    await Promise.resolve(req);
  }
}

const model = (id: string) =>
  ({ id, providerId: 'openai', capabilities: [], fallbacks: [] }) as unknown as ModelDescriptor;
const req: GenerateRequest = { model: 'a', messages: [], maxTokens: 10 };
const status = (s: number | undefined, retryAfter?: number) =>
  new ProviderError('openai', s, `failed with ${s}`, retryAfter);

async function drain(stream: AsyncIterable<StreamChunk>): Promise<StreamChunk[]> {
  const out: StreamChunk[] = [];
  for await (const c of stream) out.push(c);
  return out;
}

describe('RoutedProvider', () => {
  it('moves to the next upstream on a retryable failure, reporting both ends, and names the model', async () => {
    const router = new ListRouter({ a: ['u1', 'u2'] });
    const adapter = new ScriptedAdapter({ u1: status(429, 2000), u2: 'hi' });
    const routed = new RoutedProvider(router, [{ model: model('a'), adapter }]);
    await expect(routed.generate(req)).resolves.toMatchObject({ text: 'hi', modelId: 'a' });
    expect(adapter.calls).toEqual(['a@u1', 'a@u2']);
    expect(router.reports).toEqual([
      ['u1', 'retryable', 2000],
      ['u2', 'ok', undefined],
    ]);
  });

  it('falls back to the next model once every upstream of the first failed', async () => {
    const router = new ListRouter({ a: ['u1'], b: ['u2'] });
    const a = new ScriptedAdapter({ u1: status(500) });
    const b = new ScriptedAdapter({ u2: 'from b' });
    const routed = new RoutedProvider(router, [
      { model: model('a'), adapter: a },
      { model: model('b'), adapter: b },
    ]);
    await expect(routed.generate(req)).resolves.toMatchObject({ text: 'from b', modelId: 'b' });
    expect(b.calls).toEqual(['b@u2']);
  });

  it('throws a misconfigured upstream’s error at once (reported), without the next upstream or model', async () => {
    const router = new ListRouter({ a: ['u1', 'u2'], b: ['u3'] });
    const adapter = new ScriptedAdapter({ u1: status(401), u2: 'never', u3: 'never' });
    const routed = new RoutedProvider(router, [
      { model: model('a'), adapter },
      { model: model('b'), adapter },
    ]);
    await expect(routed.generate(req)).rejects.toMatchObject({ upstreamStatus: 401 });
    expect(adapter.calls).toEqual(['a@u1']);
    expect(router.reports).toEqual([['u1', 'misconfigured', undefined]]);
  });

  it('throws a 400 without marking the upstream', async () => {
    const router = new ListRouter({ a: ['u1', 'u2'] });
    const routed = new RoutedProvider(router, [
      { model: model('a'), adapter: new ScriptedAdapter({ u1: status(400), u2: 'never' }) },
    ]);
    await expect(routed.generate(req)).rejects.toMatchObject({ upstreamStatus: 400 });
    expect(router.reports).toEqual([]);
  });

  it('throws the last error when every candidate failed', async () => {
    const router = new ListRouter({ a: ['u1', 'u2'] });
    const routed = new RoutedProvider(router, [
      { model: model('a'), adapter: new ScriptedAdapter({ u1: status(500), u2: status(503) }) },
    ]);
    await expect(routed.generate(req)).rejects.toMatchObject({ upstreamStatus: 503 });
  });

  it('calls the environment configuration when the router knows no upstream', async () => {
    const adapter = new ScriptedAdapter({ env: 'from env' });
    const routed = new RoutedProvider(new ListRouter({}), [{ model: model('a'), adapter }]);
    await expect(routed.generate(req)).resolves.toMatchObject({ text: 'from env', modelId: 'a' });
    expect(adapter.calls).toEqual(['env']);
  });

  it('routes a stream until its first chunk, which names the model', async () => {
    const router = new ListRouter({ a: ['u1', 'u2'] });
    const adapter = new ScriptedAdapter({ u1: status(undefined), u2: 'rest' });
    const chunks = await drain(
      new RoutedProvider(router, [{ model: model('a'), adapter }]).stream(req),
    );
    expect(chunks[0]).toEqual({ text: 'first ', modelId: 'a' });
    expect(chunks.slice(1).map((c) => c.text)).toEqual(['rest']);
    expect(router.reports.map((r) => r[1])).toEqual(['retryable', 'ok']);
  });

  it('never retries nor falls back after the first chunk', async () => {
    const router = new ListRouter({ a: ['u1', 'u2'], b: ['u3'] });
    const adapter = new ScriptedAdapter({ u1: 'cut', u2: 'never', u3: 'never' });
    const routed = new RoutedProvider(router, [
      { model: model('a'), adapter },
      { model: model('b'), adapter },
    ]);
    await expect(drain(routed.stream(req))).rejects.toThrow('stream broke');
    expect(adapter.calls).toEqual(['a@u1']);
  });

  it('calls an upstream through the adapter of its protocol when one is given', async () => {
    const router = new ListRouter({ a: ['u1'] });
    const own = new ScriptedAdapter({ u1: 'never' });
    const protocol = new ScriptedAdapter({ u1: 'through openai' });
    const routed = new RoutedProvider(
      router,
      [{ model: model('a'), adapter: own }],
      () => protocol,
    );
    await expect(routed.generate(req)).resolves.toMatchObject({ text: 'through openai' });
    expect([own.calls, protocol.calls]).toEqual([[], ['a@u1']]);
  });

  it('classifies outcomes: 408 and 529 retryable, 403/404 misconfigured, abort and 422 unreported', () => {
    expect(outcomeOf(status(408), 1)?.kind).toBe('retryable');
    expect(outcomeOf(status(529), 1)?.kind).toBe('retryable');
    expect(outcomeOf(status(403), 1)?.kind).toBe('misconfigured');
    expect(outcomeOf(status(404), 1)?.kind).toBe('misconfigured');
    expect(outcomeOf(status(422), 1)).toBeUndefined();
    expect(
      outcomeOf(new ProviderError('openai', undefined, 'aborted', undefined, true), 1),
    ).toBeUndefined();
    expect(outcomeOf(new Error('ours'), 1)).toBeUndefined();
  });

  it('skips an upstream at its ceiling without calling it, and counts the answer’s tokens', async () => {
    const router = new ListRouter({ a: ['u1', 'u2'] });
    router.atCeiling.set('u1', new Date('2026-01-01T00:01:00Z'));
    const adapter = new ScriptedAdapter({ u1: 'never', u2: 'hi' });
    const routed = new RoutedProvider(router, [{ model: model('a'), adapter }]);
    await expect(routed.generate(req)).resolves.toMatchObject({ text: 'hi' });
    expect(adapter.calls).toEqual(['a@u2']);
    expect(router.tokens).toEqual([['u2', 2]]);
  });

  it('throws a 429 that is not retried, with the soonest reset, when every upstream is at its ceiling', async () => {
    const router = new ListRouter({ a: ['u1'], b: ['u2'] });
    router.atCeiling.set('u1', new Date('2026-01-01T00:02:00Z'));
    router.atCeiling.set('u2', new Date('2026-01-01T00:01:00Z'));
    const adapter = new ScriptedAdapter({ u1: 'never', u2: 'never' });
    const routed = new RoutedProvider(router, [
      { model: model('a'), adapter },
      { model: model('b'), adapter },
    ]);
    const err = await routed.generate(req).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UpstreamsBusyError);
    expect(err).toMatchObject({ upstreamStatus: 429, resetsAt: new Date('2026-01-01T00:01:00Z') });
    expect(isRetryable(err)).toBe(false);
    expect(adapter.calls).toEqual([]);
  });

  it('throws an upstream’s failure rather than the ceiling when one was tried', async () => {
    const router = new ListRouter({ a: ['u1', 'u2'] });
    router.atCeiling.set('u2', new Date('2026-01-01T00:01:00Z'));
    const routed = new RoutedProvider(router, [
      { model: model('a'), adapter: new ScriptedAdapter({ u1: status(503), u2: 'never' }) },
    ]);
    await expect(routed.generate(req)).rejects.toMatchObject({ upstreamStatus: 503 });
  });

  it('counts a stream’s tokens as its cumulative usage grows', async () => {
    const router = new ListRouter({ a: ['u1'] });
    const adapter = new ScriptedAdapter({ u1: 'rest' });
    await drain(new RoutedProvider(router, [{ model: model('a'), adapter }]).stream(req));
    expect(router.tokens).toEqual([['u1', 3]]);
  });
});
