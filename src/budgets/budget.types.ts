/** Who a budget caps: an API key, a member inside a team's pool, a team's pool, a user. */
export const BUDGET_SCOPES = ['user', 'team', 'member', 'key'] as const;
export type BudgetScope = (typeof BUDGET_SCOPES)[number];

/**
 * A window's kind: `day`, `week` (ISO, Monday) and `month` are local to the budget's time zone;
 * `hours` is a session of `hours` hours opened by the first charge while none is open; `total`
 * never resets.
 */
export const WINDOW_KINDS = ['day', 'week', 'month', 'hours', 'total'] as const;
export type WindowKind = (typeof WINDOW_KINDS)[number];

/** One window of a budget: its kind, length (`hours` only) and limit in credits. */
export interface BudgetWindow {
  window: WindowKind;
  hours: number | null;
  limit: number;
}

/** A budget as stored: its scope and owner, time zone, soft thresholds (percent) and windows. */
export interface Budget {
  id: string;
  scope: BudgetScope;
  userId: string | null;
  teamId: string | null;
  keyId: string | null;
  timezone: string;
  thresholds: number[];
  windows: BudgetWindow[];
  createdAt: Date;
  updatedAt: Date;
}

/** A window's state now: credits used and held, when it started and when it resets. */
export interface WindowState {
  budgetId: string;
  scope: BudgetScope;
  /** The key, team or user the budget caps (for `member`, the user). */
  scopeId: string;
  teamId: string | null;
  window: WindowKind;
  hours: number | null;
  limit: number;
  used: number;
  held: number;
  /** Null for `total`, and for an `hours` window with no session open. */
  start: Date | null;
  /** Null for `total`; for an `hours` window with no session open, null too. */
  resetsAt: Date | null;
}
