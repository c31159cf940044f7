import { HEALTHY, type UpstreamHealth } from './upstream-health';
import { orderUpstreams, type RoutableUpstream, serves, weightedShuffle } from './upstream-order';

/** A seeded pseudo-random source (mulberry32): the same draws on every run. */
function seeded(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const up = (id: string, over: Partial<RoutableUpstream> = {}): RoutableUpstream => ({
  id,
  name: id,
  provider: 'openai',
  models: [],
  modelMap: {},
  priority: 0,
  weight: 1,
  enabled: true,
  rpm: null,
  tpm: null,
  version: '1',
  ...over,
});
const NOW = new Date('2026-01-01T00:00:00Z');
const GPT = { id: 'gpt-4o-mini', providerId: 'openai' as const };
const CLAUDE = { id: 'claude-3-5-haiku', providerId: 'anthropic' as const };
const ids = (us: RoutableUpstream[]) => us.map((u) => u.id);

describe('serves', () => {
  it('an upstream serves its family, restricted by its models list', () => {
    expect(serves(up('a'), GPT)).toBe(true);
    expect(serves(up('a'), CLAUDE)).toBe(false);
    expect(serves(up('a', { provider: 'anthropic' }), CLAUDE)).toBe(true);
    expect(serves(up('a', { provider: 'google' }), GPT)).toBe(false);
    expect(serves(up('a', { models: ['gpt-4o'] }), GPT)).toBe(false);
    expect(serves(up('a', { enabled: false }), GPT)).toBe(false);
  });

  it('openai-compatible serves OpenAI models, or exactly the ids it lists, of any family', () => {
    expect(serves(up('a', { provider: 'openai-compatible' }), GPT)).toBe(true);
    expect(serves(up('a', { provider: 'openai-compatible' }), CLAUDE)).toBe(false);
    const listed = up('a', { provider: 'openai-compatible', models: [CLAUDE.id] });
    expect(serves(listed, CLAUDE)).toBe(true);
    expect(serves(listed, GPT)).toBe(false);
  });
});

describe('orderUpstreams', () => {
  it('draws the first candidate by weight: 3:1 over 400 draws is 300/100 within 10 %', () => {
    const random = seeded(42);
    const list = [up('heavy', { weight: 3 }), up('light', { weight: 1 })];
    let heavy = 0;
    for (let i = 0; i < 400; i++)
      if (orderUpstreams(list, () => undefined, NOW, random)[0].id === 'heavy') heavy++;
    expect(heavy).toBeGreaterThanOrEqual(270);
    expect(heavy).toBeLessThanOrEqual(330);
  });

  it('a weighted shuffle keeps every item once', () => {
    const items = [1, 2, 3, 4, 5].map((w) => ({ weight: w, id: w }));
    const out = weightedShuffle(items, seeded(7));
    expect(out.map((i) => i.id).sort()).toEqual([1, 2, 3, 4, 5]);
  });

  it('orders priority groups higher first, whatever the weights', () => {
    const list = [
      up('low', { priority: 0, weight: 100 }),
      up('high-a', { priority: 10 }),
      up('mid', { priority: 5, weight: 50 }),
      up('high-b', { priority: 10 }),
    ];
    const random = seeded(1);
    for (let i = 0; i < 20; i++) {
      const order = ids(orderUpstreams(list, () => undefined, NOW, random));
      expect(order.slice(0, 2).sort()).toEqual(['high-a', 'high-b']);
      expect(order.slice(2)).toEqual(['mid', 'low']);
    }
  });

  it('puts cooling upstreams after the healthy ones by cooldown end, then the failing ones', () => {
    const at = (ms: number) => new Date(NOW.getTime() + ms);
    const health: Record<string, UpstreamHealth> = {
      late: { ...HEALTHY, state: 'cooling', cooldownUntil: at(60_000) },
      soon: { ...HEALTHY, state: 'cooling', cooldownUntil: at(1_000) },
      broken: { ...HEALTHY, state: 'failing' },
      // Its cooldown is over: tried as healthy again.
      over: { ...HEALTHY, state: 'cooling', cooldownUntil: at(-1) },
    };
    const list = [
      up('broken', { priority: 9 }),
      up('late', { priority: 9 }),
      up('soon'),
      up('fine'),
      up('over'),
    ];
    const order = ids(orderUpstreams(list, (id) => health[id], NOW, seeded(3)));
    expect(order.slice(0, 2).sort()).toEqual(['fine', 'over']);
    expect(order.slice(2)).toEqual(['soon', 'late', 'broken']);
  });

  it('still answers the one upstream of a provider while it cools down', () => {
    const health = {
      only: {
        ...HEALTHY,
        state: 'cooling' as const,
        cooldownUntil: new Date(NOW.getTime() + 5000),
      },
    };
    expect(
      ids(orderUpstreams([up('only')], (id) => health[id as 'only'], NOW, Math.random)),
    ).toEqual(['only']);
  });
});
