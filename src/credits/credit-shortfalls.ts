import type { DataSource, EntityManager } from 'typeorm';
import {
  COLLECT_SHORTFALL_SQL,
  LOCK_BALANCE_SQL,
  OWED_SQL,
  RECORD_SHORTFALL_SQL,
} from './credit-holds.sql';
import { INSERT_CONSUMPTION_SQL } from './daily-consumption.sql';

// Shortfalls: the credits of a reply's reported usage that neither its hold nor the balance
// covered. The settlement charges what the balance covers, flags its CONSUMPTION entry and adds
// the rest to what the user owes (credit_shortfalls); admission refuses while anything is owed,
// and collects it once the balance covers the debt and the new hold.

/** Description of the CONSUMPTION entry that collects a debt. */
const COLLECTED = 'Shortfall of earlier replies collected (their usage exceeded hold and balance)';

/**
 * Records `shortfall` credits (integer > 0) not charged by the CONSUMPTION entry of `reference`,
 * in the settlement's transaction `m`, which holds user `userId`'s row lock.
 */
export async function recordShortfall(
  m: EntityManager,
  userId: string,
  reference: string,
  shortfall: number,
): Promise<void> {
  await m.query(RECORD_SHORTFALL_SQL, [userId, reference, shortfall]);
}

/**
 * Collects what user `userId` owes when the balance covers it plus `amount` (the hold about to
 * be asked for): one transaction locks the user's row and the debt, takes the debt from the
 * balance and writes its CONSUMPTION entry (reference `shortfall:<requestId>`, counted in the
 * day counters of APP_TIMEZONE `tz`). Returns `{admissible: true}` when nothing is owed any more
 * (collected now, or by another request meanwhile), else `{admissible: false, owed, balance}`
 * with nothing changed.
 */
export function collectShortfall(
  dataSource: DataSource,
  input: { userId: string; amount: number; requestId: string; tz: string },
): Promise<{ admissible: true } | { admissible: false; owed: number; balance: number }> {
  return dataSource.transaction(async (m) => {
    const [user] = await m.query(LOCK_BALANCE_SQL, [input.userId]);
    const [debt] = await m.query(OWED_SQL, [input.userId]);
    const owed: number = debt?.credits ?? 0;
    if (!user || owed === 0) return { admissible: true };
    if (user.credits < owed + input.amount)
      return { admissible: false, owed, balance: user.credits };
    await m.query(COLLECT_SHORTFALL_SQL, [input.userId, owed]);
    const kinds = [null, null, null, null]; // cache reads, cache writes, reasoning, savings
    await m.query(INSERT_CONSUMPTION_SQL, [
      input.userId,
      owed,
      COLLECTED,
      `shortfall:${input.requestId}`,
      null, // model
      null, // prompt tokens
      null, // completion tokens
      null, // key
      input.tz,
      ...kinds,
    ]);
    return { admissible: true };
  });
}
