/**
 * Shapes of CreditHoldsService: an open hold, a charge and the usage recorded with it, a
 * settlement.
 */

export interface OpenHold {
  id: string;
  userId: string;
  /** Credits reserved. */
  amount: number;
  requestId: string;
  /** The API key the request came through; its CONSUMPTION entry records it. */
  keyId?: string;
  /** The team whose pool holds and pays (a call in the team's context; its team and member budgets apply); absent: the user's own. */
  teamId?: string;
}

/** What a settled request used, recorded on its CONSUMPTION entry for usage statistics. */
export interface RecordedUsage {
  modelId: string;
  promptTokens: number;
  completionTokens: number;
  /** Of promptTokens, read from the provider's cache (null or absent: not reported). */
  cachedTokens?: number | null;
  /** Of promptTokens, written to the provider's cache (null or absent: not reported). */
  cacheWriteTokens?: number | null;
  /** Of completionTokens, the reasoning tokens (null or absent: not reported). */
  reasoningTokens?: number | null;
  /** Credits the cache reads saved (integer ≥ 0; absent: not computed). */
  cacheSavings?: number;
}

/** What a settlement charges: one CONSUMPTION entry. */
export interface Charge {
  /** Credits to consume (integer ≥ 0; above the hold, the rest comes from the balance). */
  cost: number;
  /** The entry's description (cut to 500 characters). */
  description: string;
  /** Model and tokens, recorded as columns of the entry; none for a bare charge. */
  usage?: RecordedUsage;
  /**
   * The model call's generation record (src/generations, `GenerationInput`), written by the same
   * settlement with the credits it charged; none for a bare charge.
   */
  generation?: object;
}

export interface Settlement {
  /** Credits consumed (the CONSUMPTION entry is `-charged`). */
  charged: number;
  /** Credits of the actual cost that the balance could not cover (0 normally). */
  shortfall: number;
}

/**
 * The columns of a CONSUMPTION entry that a settlement names beyond its amount, description and
 * reference. The functions of the money rules read their input by name (`record_consumption`,
 * migration SettlementRule, takes every key named like a `credit_transactions` column), so a new
 * ledger column goes here, in the mapping from the caller's charge (`ledgerColumns` in
 * credit-holds.service.ts) and in that function's INSERT (a migration replacing it): nothing
 * counts positions.
 */
export interface LedgerColumns {
  /** The API key the request came through; null without one. */
  keyId: string | null;
  /** The team whose pool pays (the entry is the pool's, `userId` its member); null: the user's own. */
  teamId: string | null;
  modelId: string | null;
  promptTokens: number | null;
  completionTokens: number | null;
  /** Of the tokens: cache reads, cache writes, reasoning; and the cache savings (null: unknown). */
  cachedTokens: number | null;
  cacheWriteTokens: number | null;
  reasoningTokens: number | null;
  cacheSavings: number | null;
}

/** One request's settlement, as `settle_holds` reads each row (by these names). */
export interface SettlementInput extends LedgerColumns {
  holdId: string;
  userId: string;
  /** Credits to consume (integer ≥ 0). */
  cost: number;
  /** At most 500 characters. */
  description: string;
  /** `consumption:<requestId>`, unique: a request is charged once. */
  reference: string;
  /** The call's generation record, inserted by `settle_hold` (migration Generations); null: none. */
  generation: object | null;
}

/**
 * The budget window that refused an admission (`budgets_admit`, migration Budgets): `scope`
 * (`key`, `member`, `team`, `user`), `scopeId` (the key, team or user), `teamId` (member and
 * team scopes), `window` (`day`, `week`, `month`, `hours`, `total`), `hours` (an `hours` window's
 * length), `limit`, `used` and `held` (credits), `resetsAt` (ISO time; null for `total`).
 */
export interface BudgetRefusal {
  scope: 'key' | 'member' | 'team' | 'user';
  scopeId: string;
  teamId: string | null;
  budgetId: string;
  window: 'day' | 'week' | 'month' | 'hours' | 'total';
  hours: number | null;
  limit: number;
  used: number;
  held: number;
  resetsAt: string | null;
}

/** One request's admission, as `admit_holds` reads each row (by these names). */
export interface AdmissionInput {
  userId: string;
  /** Credits to hold (integer > 0). */
  amount: number;
  requestId: string;
  /** Credits of the prompt estimate checked against the plan's daily limit; null: none. */
  dailyEstimate: number | null;
  keyId: string | null;
  /**
   * The team whose pool pays, or null (the user's own balance). The admission checks in the same
   * statement that `userId` is a member (else SQLSTATE TM404) and holds from the pool; the plan's
   * daily limit and the user's debt do not apply to a pool's call; its team and member budgets do.
   */
  teamId: string | null;
  /** "Now" from the Clock: the day the daily limits count. */
  now: Date;
}
