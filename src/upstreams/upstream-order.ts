import { effectiveState, type UpstreamHealth } from './upstream-health';
import type { RoutedModel, UpstreamProvider } from './upstream-router.types';

/** An upstream as the router holds it in memory: its row (or the environment's) with the key opened. */
export interface RoutableUpstream {
  id: string;
  name: string;
  provider: UpstreamProvider;
  baseUrl?: string;
  apiKey?: string;
  models: string[];
  modelMap: Record<string, string>;
  priority: number;
  weight: number;
  enabled: boolean;
  /** Requests per minute all instances send at most (null: no ceiling). */
  rpm: number | null;
  /** Tokens (prompt + completion) per minute all instances use at most (null: no ceiling). */
  tpm: number | null;
  version: string;
}

/** The catalogue family each upstream protocol serves when it lists no models. */
const FAMILY: Record<UpstreamProvider, RoutedModel['providerId']> = {
  openai: 'openai',
  'openai-compatible': 'openai',
  anthropic: 'anthropic',
  google: 'google',
};

/**
 * Whether `u` may serve `model`: its protocol's family (openai and openai-compatible: OpenAI's
 * models), restricted to `models` when that lists any; an `openai-compatible` upstream with a
 * list serves exactly those ids, of any family.
 */
export function serves(u: RoutableUpstream, model: RoutedModel): boolean {
  if (!u.enabled) return false;
  if (u.models.length > 0 && !u.models.includes(model.id)) return false;
  if (u.provider === 'openai-compatible' && u.models.length > 0) return true;
  return FAMILY[u.provider] === model.providerId;
}

/**
 * `items` in a random order where each item comes earlier with odds proportional to its weight:
 * weighted sampling without replacement. `random` returns [0, 1).
 */
export function weightedShuffle<T extends { weight: number }>(
  items: T[],
  random: () => number,
): T[] {
  const left = [...items];
  const out: T[] = [];
  let total = left.reduce((s, i) => s + i.weight, 0);
  while (left.length > 0) {
    let r = random() * total;
    let k = 0;
    while (k < left.length - 1 && r >= left[k].weight) r -= left[k++].weight;
    const [picked] = left.splice(k, 1);
    total -= picked.weight;
    out.push(picked);
  }
  return out;
}

/**
 * The routing order of the upstreams serving a model: the healthy ones by priority (higher
 * first), shuffled by weight within a priority; then those cooling down, by the end of their
 * cooldown; then the failing ones, by priority. Nothing is dropped: a provider with one
 * upstream still gets its one try.
 */
export function orderUpstreams(
  upstreams: RoutableUpstream[],
  health: (id: string) => UpstreamHealth | undefined,
  now: Date,
  random: () => number,
): RoutableUpstream[] {
  const healthy: RoutableUpstream[] = [];
  const cooling: { u: RoutableUpstream; until: number }[] = [];
  const failing: RoutableUpstream[] = [];
  for (const u of upstreams) {
    const h = health(u.id);
    const state = effectiveState(h, now);
    if (state === 'healthy') healthy.push(u);
    else if (state === 'cooling') cooling.push({ u, until: h?.cooldownUntil?.getTime() ?? 0 });
    else failing.push(u);
  }
  const priorities = [...new Set(healthy.map((u) => u.priority))].sort((a, b) => b - a);
  const byPriority = (a: RoutableUpstream, b: RoutableUpstream) => b.priority - a.priority;
  return [
    ...priorities.flatMap((p) =>
      weightedShuffle(
        healthy.filter((u) => u.priority === p),
        random,
      ),
    ),
    ...cooling.sort((a, b) => a.until - b.until).map((c) => c.u),
    ...failing.sort(byPriority),
  ];
}
