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
}

export interface Settlement {
  /** Credits consumed (the CONSUMPTION entry is `-charged`). */
  charged: number;
  /** Credits of the actual cost that the balance could not cover (0 normally). */
  shortfall: number;
}
