import type { UpstreamOutcome } from './upstream-router.types';

export const UPSTREAM_STATES = ['healthy', 'cooling', 'failing'] as const;
export type UpstreamStateName = (typeof UPSTREAM_STATES)[number];

/** The last failure of an upstream: the provider's message and HTTP status, never a key. */
export interface UpstreamLastError {
  message: string;
  status?: number;
}

/** One row of `upstream_states`: what every instance knows of an upstream's health. */
export interface UpstreamHealth {
  state: UpstreamStateName;
  consecutiveFailures: number;
  /** End of the current (or last) cooldown; null when it never cooled. */
  cooldownUntil: Date | null;
  /** Length of the last cooldown started by failures, ms (0: none since the last success); doubled on the next. */
  cooldownMs: number;
  lastError: UpstreamLastError | null;
  lastErrorAt: Date | null;
}

/** The rules of `report`, from UpstreamsConfig. */
export interface CooldownRules {
  cooldownMs: number;
  failuresBeforeCooldown: number;
  maxCooldownMs: number;
}

export const HEALTHY: UpstreamHealth = Object.freeze({
  state: 'healthy',
  consecutiveFailures: 0,
  cooldownUntil: null,
  cooldownMs: 0,
  lastError: null,
  lastErrorAt: null,
});

/**
 * Where an upstream stands at `now` for the routing order: `cooling` only while its cooldown
 * runs (after it, the upstream is tried as healthy again); `failing` until a success or an
 * admin's change.
 */
export function effectiveState(h: UpstreamHealth | undefined, now: Date): UpstreamStateName {
  if (!h) return 'healthy';
  if (h.state === 'cooling')
    return h.cooldownUntil && h.cooldownUntil > now ? 'cooling' : 'healthy';
  return h.state;
}

/** What a report changed: the new health and whether it started a cooldown (for the metric). */
export interface Transition {
  next: UpstreamHealth;
  cooledDown: boolean;
}

/**
 * The health after `outcome` at `now`, or null when nothing changes (an `ok` for an upstream
 * already healthy with no failures counted: nothing is written).
 * - `ok`: healthy, failures and the doubling reset (also ends `failing`).
 * - `retryable` with `retryAfterMs`: cooling until now + Retry-After (never shortening a longer one).
 * - `retryable` without: one more consecutive failure; at `failuresBeforeCooldown` (and not
 *   already cooling) cooling for `cooldownMs`, doubled on each repeat without a success between,
 *   up to `maxCooldownMs`. A failure after that cooldown ends starts the next one at once.
 * - `misconfigured`: failing, until a success.
 */
export function transition(
  current: UpstreamHealth | undefined,
  outcome: UpstreamOutcome,
  now: Date,
  rules: CooldownRules,
): Transition | null {
  const h = current ?? HEALTHY;
  if (outcome.kind === 'ok') {
    if (h.state === 'healthy' && h.consecutiveFailures === 0 && h.cooldownMs === 0) return null;
    return {
      next: { ...h, state: 'healthy', consecutiveFailures: 0, cooldownMs: 0 },
      cooledDown: false,
    };
  }
  const failed = {
    ...h,
    consecutiveFailures: h.consecutiveFailures + 1,
    lastError: { message: outcome.message, ...(outcome.status ? { status: outcome.status } : {}) },
    lastErrorAt: now,
  };
  if (outcome.kind === 'misconfigured')
    return { next: { ...failed, state: 'failing' }, cooledDown: false };
  const cooling = effectiveState(h, now) === 'cooling';
  if (outcome.retryAfterMs !== undefined && outcome.retryAfterMs > 0) {
    const until = new Date(now.getTime() + outcome.retryAfterMs);
    const longer = cooling && h.cooldownUntil && h.cooldownUntil > until;
    return {
      next: {
        ...failed,
        state: h.state === 'failing' ? 'failing' : 'cooling',
        cooldownUntil: longer ? h.cooldownUntil : until,
      },
      cooledDown: !cooling,
    };
  }
  if (cooling || h.state === 'failing' || failed.consecutiveFailures < rules.failuresBeforeCooldown)
    return { next: failed, cooledDown: false };
  const ms = h.cooldownMs > 0 ? Math.min(h.cooldownMs * 2, rules.maxCooldownMs) : rules.cooldownMs;
  return {
    next: {
      ...failed,
      state: 'cooling',
      cooldownMs: ms,
      cooldownUntil: new Date(now.getTime() + ms),
    },
    cooledDown: true,
  };
}
