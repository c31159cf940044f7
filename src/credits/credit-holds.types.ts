/** Shapes of CreditHoldsService: an open hold, the usage recorded with a charge, a settlement. */

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
}

export interface Settlement {
  /** Credits consumed (the CONSUMPTION entry is `-charged`). */
  charged: number;
  /** Credits of the actual cost that the balance could not cover (0 normally). */
  shortfall: number;
}
