import { effectiveState, HEALTHY, transition, type UpstreamHealth } from './upstream-health';
import type { UpstreamOutcome } from './upstream-router.types';

const RULES = { cooldownMs: 30_000, failuresBeforeCooldown: 3, maxCooldownMs: 600_000 };
const T0 = new Date('2026-01-01T00:00:00Z');
const at = (ms: number) => new Date(T0.getTime() + ms);
const ok: UpstreamOutcome = { kind: 'ok', latencyMs: 5 };
const e500: UpstreamOutcome = { kind: 'retryable', status: 500, message: 'boom', latencyMs: 5 };

/** Applies `outcomes` in turn at `now`, answering the last health and the cooldowns started. */
function run(start: UpstreamHealth | undefined, outcomes: UpstreamOutcome[], now: Date) {
  let h = start;
  let cooldowns = 0;
  for (const o of outcomes) {
    const t = transition(h, o, now, RULES);
    if (t) {
      h = t.next;
      if (t.cooledDown) cooldowns++;
    }
  }
  return { h: h ?? HEALTHY, cooldowns };
}

describe('upstream health', () => {
  it('an ok on a healthy upstream changes nothing (nothing is written)', () => {
    expect(transition(undefined, ok, T0, RULES)).toBeNull();
    expect(transition(HEALTHY, ok, T0, RULES)).toBeNull();
  });

  it('three 500s in a row cool the upstream for UPSTREAM_COOLDOWN_MS', () => {
    const two = run(undefined, [e500, e500], T0);
    expect(two.h.state).toBe('healthy');
    expect(two.h.consecutiveFailures).toBe(2);
    const three = run(two.h, [e500], T0);
    expect(three.cooldowns).toBe(1);
    expect(three.h).toMatchObject({
      state: 'cooling',
      cooldownMs: 30_000,
      cooldownUntil: at(30_000),
    });
    expect(three.h.lastError).toEqual({ message: 'boom', status: 500 });
    expect(effectiveState(three.h, at(29_999))).toBe('cooling');
    expect(effectiveState(three.h, at(30_000))).toBe('healthy');
  });

  it('failures during a cooldown do not extend it; one after it doubles the next, up to the cap', () => {
    const first = run(undefined, [e500, e500, e500, e500, e500], T0);
    expect(first.cooldowns).toBe(1);
    expect(first.h.cooldownUntil).toEqual(at(30_000));
    const second = run(first.h, [e500], at(30_000));
    expect(second.h).toMatchObject({
      state: 'cooling',
      cooldownMs: 60_000,
      cooldownUntil: at(90_000),
    });
    let h = second.h;
    let now = at(90_000);
    for (let i = 0; i < 10; i++) {
      h = run(h, [e500], now).h;
      now = h.cooldownUntil!;
    }
    expect(h.cooldownMs).toBe(600_000);
  });

  it('a success resets the failures and the doubling', () => {
    const cooled = run(undefined, [e500, e500, e500], T0).h;
    const back = run(cooled, [ok], at(30_000)).h;
    expect(back).toMatchObject({ state: 'healthy', consecutiveFailures: 0, cooldownMs: 0 });
    const again = run(back, [e500, e500, e500], at(31_000)).h;
    expect(again.cooldownMs).toBe(30_000);
  });

  it('Retry-After cools the upstream for that long at once', () => {
    const t = transition(
      undefined,
      { kind: 'retryable', status: 429, retryAfterMs: 7_000, message: 'slow down', latencyMs: 1 },
      T0,
      RULES,
    );
    expect(t?.cooledDown).toBe(true);
    expect(t?.next).toMatchObject({
      state: 'cooling',
      cooldownUntil: at(7_000),
      consecutiveFailures: 1,
    });
    // A shorter Retry-After during it keeps the longer end.
    const shorter = transition(
      t!.next,
      { kind: 'retryable', status: 429, retryAfterMs: 1_000, message: 'slow down', latencyMs: 1 },
      T0,
      RULES,
    );
    expect(shorter?.next.cooldownUntil).toEqual(at(7_000));
    expect(shorter?.cooledDown).toBe(false);
  });

  it('misconfigured marks the upstream failing until a success', () => {
    const bad = transition(
      undefined,
      { kind: 'misconfigured', status: 401, message: 'bad key', latencyMs: 1 },
      T0,
      RULES,
    )!.next;
    expect(bad).toMatchObject({ state: 'failing', lastError: { status: 401, message: 'bad key' } });
    expect(effectiveState(bad, at(10 * 60_000))).toBe('failing');
    expect(run(bad, [e500, e500, e500], T0).h.state).toBe('failing');
    expect(run(bad, [ok], T0).h.state).toBe('healthy');
  });
});
