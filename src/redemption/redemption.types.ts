/** A batch with its codes' counts (BATCH_SQL), before the API's mapping. */
export interface BatchRow {
  id: string;
  name: string;
  credits: number;
  quantity: number;
  usesPerCode: number;
  onePerUser: boolean;
  expiresAt: Date | null;
  disabledAt: Date | null;
  exportedAt: Date | null;
  createdAt: Date;
  created: number;
  redeemed: number;
  redemptions: number;
  /** Codes with a use left (usable unless the batch is disabled or expired). */
  open: number;
}
