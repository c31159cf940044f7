import type {
  RoutedModel,
  UpstreamAdmission,
  UpstreamOutcome,
  UpstreamProvider,
  UpstreamRouting,
  UpstreamTarget,
} from '../../upstreams/upstream-router.types';
import {
  type EmbeddingProvider,
  type Embeddings,
  type EmbedRequest,
  ProviderError,
  UpstreamsBusyError,
} from '../providers/model-provider';
import { RoutedEmbedder } from './routed-embedder';

/**
 * A router of fixed upstreams (id and protocol) per model that records the reports and the
 * tokens counted; upstreams in `atCeiling` are refused by `admit` until the given reset.
 */
class ListRouter implements UpstreamRouting {
  reports: [string, UpstreamOutcome['kind'], number | undefined][] = [];
  tokens: [string, number][] = [];
  atCeiling = new Map<string, Date>();
  constructor(private readonly upstreams: Record<string, [string, UpstreamProvider][]>) {}
  admit(target: UpstreamTarget): UpstreamAdmission {
    const resetsAt = this.atCeiling.get(target.id);
    return resetsAt ? { admitted: false, resetsAt } : { admitted: true };
  }
  used(target: UpstreamTarget, tokens: number): void {
    this.tokens.push([target.id, tokens]);
  }
  candidates(model: RoutedModel): Promise<UpstreamTarget[]> {
    return Promise.resolve(
      (this.upstreams[model.id] ?? []).map(([id, provider]) => ({
        id,
        name: id,
        provider,
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

/** An embedder answering per upstream id (`env` without a target): an error, or a vector. */
class ScriptedEmbedder implements EmbeddingProvider {
  calls: string[] = [];
  constructor(private readonly script: Record<string, ProviderError | number>) {}
  embed(req: EmbedRequest, target?: UpstreamTarget): Promise<Embeddings> {
    this.calls.push(target?.upstreamModel ?? `env:${req.model}`);
    const step = this.script[target?.id ?? 'env'];
    if (step instanceof ProviderError) return Promise.reject(step);
    return Promise.resolve({ vectors: req.texts.map(() => [Number(step)]) });
  }
}

const model: RoutedModel = { id: 'e', providerId: 'openai' };
const req: EmbedRequest = { model: 'e', texts: ['one', 'two'] };
const status = (s: number | undefined, retryAfter?: number) =>
  new ProviderError('openai', s, `failed with ${s}`, retryAfter);

describe('RoutedEmbedder', () => {
  it('moves to the next upstream at once on 500 and 429, reporting every attempt, in order', async () => {
    const router = new ListRouter({
      e: [
        ['u1', 'openai'],
        ['u2', 'openai'],
        ['u3', 'openai'],
      ],
    });
    const adapter = new ScriptedEmbedder({ u1: status(500), u2: status(429, 2000), u3: 3 });
    const routed = new RoutedEmbedder(router, model, adapter);
    await expect(routed.embed(req)).resolves.toEqual({ vectors: [[3], [3]] });
    expect(adapter.calls).toEqual(['e@u1', 'e@u2', 'e@u3']);
    expect(router.reports).toEqual([
      ['u1', 'retryable', undefined],
      ['u2', 'retryable', 2000],
      ['u3', 'ok', undefined],
    ]);
  });

  it('treats network errors and 408 as retryable', async () => {
    const router = new ListRouter({
      e: [
        ['u1', 'openai'],
        ['u2', 'openai'],
        ['u3', 'openai'],
      ],
    });
    const adapter = new ScriptedEmbedder({ u1: status(undefined), u2: status(408), u3: 1 });
    await expect(new RoutedEmbedder(router, model, adapter).embed(req)).resolves.toEqual({
      vectors: [[1], [1]],
    });
    expect(router.reports.map((r) => r[1])).toEqual(['retryable', 'retryable', 'ok']);
  });

  it('throws a 401 at once, reported misconfigured, without trying the next upstream', async () => {
    const router = new ListRouter({
      e: [
        ['u1', 'openai'],
        ['u2', 'openai'],
      ],
    });
    const adapter = new ScriptedEmbedder({ u1: status(401), u2: 2 });
    await expect(new RoutedEmbedder(router, model, adapter).embed(req)).rejects.toMatchObject({
      upstreamStatus: 401,
    });
    expect(adapter.calls).toEqual(['e@u1']);
    expect(router.reports).toEqual([['u1', 'misconfigured', undefined]]);
  });

  it('throws a 400 and our own abort without reporting the upstream', async () => {
    for (const err of [
      status(400),
      new ProviderError('openai', undefined, 'aborted', undefined, true),
    ]) {
      const router = new ListRouter({
        e: [
          ['u1', 'openai'],
          ['u2', 'openai'],
        ],
      });
      const adapter = new ScriptedEmbedder({ u1: err, u2: 2 });
      await expect(new RoutedEmbedder(router, model, adapter).embed(req)).rejects.toBe(err);
      expect(adapter.calls).toEqual(['e@u1']);
      expect(router.reports).toEqual([]);
    }
  });

  it('throws the last error when every upstream failed', async () => {
    const router = new ListRouter({
      e: [
        ['u1', 'openai'],
        ['u2', 'openai'],
      ],
    });
    const adapter = new ScriptedEmbedder({ u1: status(500), u2: status(503) });
    await expect(new RoutedEmbedder(router, model, adapter).embed(req)).rejects.toMatchObject({
      upstreamStatus: 503,
    });
    expect(router.reports.map((r) => r[1])).toEqual(['retryable', 'retryable']);
  });

  it('embeds through the environment configuration when the router knows no upstream', async () => {
    const router = new ListRouter({});
    const adapter = new ScriptedEmbedder({ env: 7 });
    await expect(new RoutedEmbedder(router, model, adapter).embed(req)).resolves.toEqual({
      vectors: [[7], [7]],
    });
    expect(adapter.calls).toEqual(['env:e']);
    expect(router.reports).toEqual([]);
  });

  it('calls each upstream through the embedder of its protocol', async () => {
    const router = new ListRouter({
      e: [
        ['u1', 'google'],
        ['u2', 'openai-compatible'],
      ],
    });
    const own = new ScriptedEmbedder({});
    const google = new ScriptedEmbedder({ u1: status(502) });
    const openai = new ScriptedEmbedder({ u2: 5 });
    const routed = new RoutedEmbedder(router, model, own, (p) =>
      p === 'google' ? google : openai,
    );
    await expect(routed.embed(req)).resolves.toEqual({ vectors: [[5], [5]] });
    expect([own.calls, google.calls, openai.calls]).toEqual([[], ['e@u1'], ['e@u2']]);
  });

  it('refuses an upstream whose protocol has no embeddings API, without reporting it', async () => {
    const router = new ListRouter({ e: [['u1', 'anthropic']] });
    const routed = new RoutedEmbedder(router, model, new ScriptedEmbedder({}), () => undefined);
    await expect(routed.embed(req)).rejects.toThrow('anthropic has no embeddings API');
    expect(router.reports).toEqual([]);
  });

  it('skips an upstream at its ceiling, counting the texts’ estimated tokens on the one that answered', async () => {
    const router = new ListRouter({
      e: [
        ['u1', 'openai'],
        ['u2', 'openai'],
      ],
    });
    router.atCeiling.set('u1', new Date('2026-01-01T00:01:00Z'));
    const adapter = new ScriptedEmbedder({ u1: 1, u2: 2 });
    await expect(new RoutedEmbedder(router, model, adapter).embed(req)).resolves.toEqual({
      vectors: [[2], [2]],
    });
    expect(adapter.calls).toEqual(['e@u2']);
    // 'one' + 'two': 6 characters, ceil(6 / 4) = 2 tokens.
    expect(router.tokens).toEqual([['u2', 2]]);
  });

  it('throws a 429 naming the reset when every upstream is at its ceiling', async () => {
    const router = new ListRouter({ e: [['u1', 'openai']] });
    router.atCeiling.set('u1', new Date('2026-01-01T00:01:00Z'));
    const adapter = new ScriptedEmbedder({ u1: 1 });
    const err = await new RoutedEmbedder(router, model, adapter).embed(req).catch((e) => e);
    expect(err).toBeInstanceOf(UpstreamsBusyError);
    expect(err).toMatchObject({ upstreamStatus: 429, resetsAt: new Date('2026-01-01T00:01:00Z') });
    expect(adapter.calls).toEqual([]);
  });
});
