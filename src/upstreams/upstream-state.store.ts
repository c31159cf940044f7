import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { Clock } from '../common/clock/clock';
import type { CooldownRules, Transition, UpstreamHealth } from './upstream-health';
import { transition } from './upstream-health';
import type { UpstreamOutcome } from './upstream-router.types';
import {
  deleteStateSql,
  ensureStateSql,
  healthOf,
  lockStateSql,
  SELECT_ALL_STATES_SQL,
  type StateRow,
  updateStateSql,
} from './upstream-states.sql';

/** How old the in-memory copy of `upstream_states` may be before the hot path reads it again, ms. */
export const STATE_CACHE_MS = 250;

/**
 * The health of every upstream, shared by all instances through `upstream_states`. Reads are
 * served from an in-memory copy refreshed at most every STATE_CACHE_MS (one small query per
 * instance, however many requests); a report updates the copy at once and the table in one
 * locked transaction, so failures counted by several instances add up.
 */
@Injectable()
export class UpstreamStateStore {
  private readonly logger = new Logger('Upstreams');
  private states = new Map<string, UpstreamHealth>();
  private loadedAt = -Infinity;
  private loading?: Promise<void>;

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly clock: Clock,
  ) {}

  /**
   * Every upstream's health as of at most STATE_CACHE_MS ago (by the clock). When the copy is
   * older it is read again (one query shared by concurrent callers); if that read fails the old
   * copy is answered and the failure logged.
   */
  async snapshot(): Promise<ReadonlyMap<string, UpstreamHealth>> {
    if (this.clock.now().getTime() - this.loadedAt >= STATE_CACHE_MS) await this.reload();
    return this.states;
  }

  /** The health as read from the table now (admin answers), bypassing the copy's age. */
  async fresh(): Promise<ReadonlyMap<string, UpstreamHealth>> {
    await this.reload(true);
    return this.states;
  }

  /**
   * Applies `outcome` to the health of `upstreamId` (see `transition`), in the table and the
   * copy. Writes nothing when the copy already shows the upstream healthy and the outcome is
   * `ok`. Answers the transition made, or null when nothing changed.
   */
  async apply(
    upstreamId: string,
    outcome: UpstreamOutcome,
    rules: CooldownRules,
  ): Promise<Transition | null> {
    const now = this.clock.now();
    if (!transition(this.states.get(upstreamId), outcome, now, rules)) return null;
    const made = await this.db.transaction(async (m) => {
      const ensure = ensureStateSql(upstreamId);
      await m.query(ensure.sql, ensure.params);
      const lock = lockStateSql(upstreamId);
      const [row] = (await m.query(lock.sql, lock.params)) as StateRow[];
      const t = transition(healthOf(row), outcome, now, rules);
      if (t) {
        const { sql, params } = updateStateSql(upstreamId, t.next);
        await m.query(sql, params);
      }
      return { t, current: t?.next ?? healthOf(row) };
    });
    this.states.set(upstreamId, made.current);
    return made.t;
  }

  /** Forgets the health of `upstreamId`: healthy again everywhere (an admin's change or delete). */
  async reset(upstreamId: string): Promise<void> {
    const { sql, params } = deleteStateSql(upstreamId);
    await this.db.query(sql, params);
    this.states.delete(upstreamId);
  }

  private reload(force = false): Promise<void> {
    if (this.loading && !force) return this.loading;
    const load = this.db
      .query(SELECT_ALL_STATES_SQL)
      .then((rows: StateRow[]) => {
        this.states = new Map(rows.map((r) => [r.upstreamId, healthOf(r)]));
        this.loadedAt = this.clock.now().getTime();
      })
      .catch((e: unknown) => {
        // The old copy serves until the next period: a database outage costs one query per period.
        this.loadedAt = this.clock.now().getTime();
        this.logger.warn(`Reading upstream states failed: ${(e as Error).message}`);
      })
      .finally(() => {
        if (this.loading === load) this.loading = undefined;
      });
    this.loading = load;
    return load;
  }
}
