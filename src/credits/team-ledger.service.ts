import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { AppError, CommonErrorCode } from '../common/errors/app-error';
import { MetricsService } from '../metrics/metrics.service';
import { BALANCE_SQL, DEBIT_SQL, REFERENCE_SEEN_SQL } from './credits.sql';
import { likePrefix, returning } from './sql';
import {
  ADD_TO_POOL_SQL,
  INSERT_POOL_ENTRY_ONCE_SQL,
  INSERT_TRANSFER_ENTRIES_SQL,
  LOCK_POOL_SQL,
  POOL_BALANCE_SQL,
  POOL_USAGE_SQL,
  SUM_POOL_BY_REFERENCE_PREFIX_SQL,
} from './team-ledger.sql';
import { UsersErrorCode } from '../users/users.errors';
import { CreditsErrorCode } from './credits.errors';

/** A team's pool: its balance and what its open holds reserve, in credits. */
export interface PoolBalance {
  credits: number;
  held: number;
}

/** A member's use of a pool over a period, in credits. */
export interface PoolMemberUsage {
  memberId: string;
  /** Credits of the pool's CONSUMPTION entries of the member's calls. */
  spent: number;
  /** Number of those entries (metered calls). */
  calls: number;
  /** Credits the member put in (transfers and purchases for the team). */
  funded: number;
}

const teamNotFound = () => new AppError(CommonErrorCode.NOT_FOUND, 'Team not found');

/**
 * The ledger of team pools: the only writer of `teams.credits` besides the money rules of
 * admission and settlement. Each change runs in one transaction with its entries, so for every
 * team `credits + Σ open holds = Σ entries` at every commit. Callers authorize first (who may
 * fund, who may read): this service checks amounts and balances only.
 */
@Injectable()
export class TeamLedgerService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly metrics: MetricsService,
  ) {}

  /**
   * Moves `amount` credits (positive integer) from user `userId`'s own balance to team `teamId`'s
   * pool: one transaction, two TRANSFER entries (the user's negative, the pool's positive naming
   * the user as member). Throws INSUFFICIENT_CREDITS (402, `required`, `balance`) when the
   * balance is short, NOT_FOUND (404) for no such team, USER_NOT_FOUND; then nothing changes.
   * Returns the user's new balance and the pool's.
   */
  async transfer(
    userId: string,
    teamId: string,
    amount: number,
  ): Promise<{ balance: number; pool: number }> {
    assertPositiveInteger(amount);
    return this.dataSource.transaction(async (m) => {
      // The user's row first, then the team's: the order of the admission statement.
      const [debited] = await returning<{ credits: number }>(m, DEBIT_SQL, [userId, amount]);
      if (!debited) {
        const [user] = await m.query(BALANCE_SQL, [userId]);
        if (!user) throw new AppError(UsersErrorCode.USER_NOT_FOUND, 'User not found');
        throw new AppError(CreditsErrorCode.INSUFFICIENT_CREDITS, 'Insufficient credits', {
          required: amount,
          balance: user.credits,
        });
      }
      const [pool] = await returning<{ credits: number }>(m, ADD_TO_POOL_SQL, [teamId, amount]);
      if (!pool) throw teamNotFound();
      const id = randomUUID();
      await m.query(INSERT_TRANSFER_ENTRIES_SQL, [
        userId,
        teamId,
        amount,
        `transfer:${id}:out`,
        `transfer:${id}:in`,
        `Transfer of ${amount} credits to a team pool (${teamId})`,
        `Transfer of ${amount} credits from a member (${userId})`,
      ]);
      return { balance: debited.credits, pool: pool.credits };
    });
  }

  /**
   * Adds `amount` (positive integer credits) to the pool as one entry of `type` keyed by
   * `reference` (unique: a second grant with it changes nothing and returns false), naming the
   * member who paid. Joins `manager`'s transaction (e.g. a payment event's). Throws NOT_FOUND for
   * no such team.
   */
  async grant(
    teamId: string,
    memberId: string | null,
    amount: number,
    type: 'PURCHASE' | 'ADJUSTMENT',
    description: string,
    reference: string,
    manager?: EntityManager,
  ): Promise<boolean> {
    assertPositiveInteger(amount);
    const work = async (m: EntityManager) => {
      const inserted = await returning<{ id: string }>(m, INSERT_POOL_ENTRY_ONCE_SQL, [
        teamId,
        memberId,
        amount,
        type,
        description.slice(0, 500),
        reference,
      ]);
      if (inserted.length === 0) return false;
      const [pool] = await returning<{ credits: number }>(m, ADD_TO_POOL_SQL, [teamId, amount]);
      if (!pool) throw teamNotFound();
      this.metrics.creditsGrantedOf(type, amount);
      return true;
    };
    return manager ? work(manager) : this.dataSource.transaction(work);
  }

  /**
   * Takes back up to `amount` credits (positive integer) from the pool as one REFUND entry
   * (negative, no member: nobody acted), by the rule of a user's clawback: bounded by the pool's
   * balance so it never goes below 0, a shortfall named in the description and not owed later.
   * Idempotent on `reference` (e.g. `refund:<pi>:<refunded>`): a second call takes nothing.
   * Returns the credits taken. Joins `manager`'s transaction. Throws NOT_FOUND for no such team.
   */
  async clawback(
    teamId: string,
    amount: number,
    reference: string,
    description: string,
    manager?: EntityManager,
  ): Promise<number> {
    assertPositiveInteger(amount);
    const work = async (m: EntityManager) => {
      const [pool] = await m.query(LOCK_POOL_SQL, [teamId]);
      if (!pool) throw teamNotFound();
      const [seen] = await m.query(REFERENCE_SEEN_SQL, [reference]);
      if (seen) return 0;
      const taken = Math.min(amount, pool.credits as number);
      const note = taken < amount ? ` (shortfall of ${amount - taken} credits: pool too low)` : '';
      const entry = [teamId, null, -taken, 'REFUND', (description + note).slice(0, 500), reference];
      const inserted = await returning<{ id: string }>(m, INSERT_POOL_ENTRY_ONCE_SQL, entry);
      if (inserted.length === 0) return 0;
      if (taken > 0) await m.query(ADD_TO_POOL_SQL, [teamId, -taken]);
      return taken;
    };
    return manager ? work(manager) : this.dataSource.transaction(work);
  }

  /** Σ of the pool's entries whose reference starts with `prefix` (e.g. all refunds of a payment). */
  async sumByReferencePrefix(
    teamId: string,
    prefix: string,
    manager?: EntityManager,
  ): Promise<number> {
    const [row] = await (manager ?? this.dataSource.manager).query(
      SUM_POOL_BY_REFERENCE_PREFIX_SQL,
      [teamId, likePrefix(prefix)],
    );
    return row.total;
  }

  /** The pool's balance and held credits. Throws NOT_FOUND for no such team. */
  async balance(teamId: string): Promise<PoolBalance> {
    const [row] = await this.dataSource.query(POOL_BALANCE_SQL, [teamId]);
    if (!row) throw teamNotFound();
    return { credits: row.credits, held: row.held };
  }

  /**
   * Use of the pool since `since`, per member (`memberId` given: that member only), members
   * with no entry left out.
   */
  async usage(teamId: string, since: Date, memberId?: string): Promise<PoolMemberUsage[]> {
    return this.dataSource.query(POOL_USAGE_SQL, [teamId, since, memberId ?? null]);
  }
}

function assertPositiveInteger(amount: number): void {
  if (!Number.isInteger(amount) || amount <= 0)
    throw new RangeError(`credit amount must be a positive integer: ${amount}`);
}
