import { useCredits } from './session';

/**
 * One spending window that applies to the signed-in user, in credits: the shape of an entry of
 * `GET /api/credits/limits` (scope, window, limit, used, held, remaining, resetsAt).
 */
export interface LimitWindow {
  /** Whose window: `user` (mine), or a key's, team pool's or team member's once budgets exist. */
  scope: string;
  /** Its length: `day` (local day in APP_TIMEZONE), later also hours, weeks or months. */
  window: string;
  limit: number;
  used: number;
  /** Reserved by replies still running. */
  held: number;
  remaining: number;
  /** When it starts again (ISO 8601), or null for a window that does not reset. */
  resetsAt: string | null;
}

/**
 * The limits left in each window. Until `GET /api/credits/limits` exists it is one window, the
 * plan's daily limit from `GET /api/credits` (today's use against it, resetting at local
 * midnight); when that route lands only this hook changes.
 */
export function useLimits() {
  const credits = useCredits();
  const c = credits.data;
  const windows: LimitWindow[] | undefined = c && [
    {
      scope: 'user',
      window: 'day',
      limit: c.dailyLimit,
      used: c.usedToday,
      held: c.heldCredits,
      remaining: Math.max(0, c.dailyLimit - c.usedToday),
      resetsAt: c.resetsAt,
    },
  ];
  return { data: windows, error: credits.error, isPending: credits.isPending };
}
