import { type BeforeApplicationShutdown, Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { Clock } from '../common/clock/clock';
import { preparedQuery } from '../database/prepared';
import {
  minuteTotalsSql,
  type MinuteUsage,
  type PendingUsage,
  syncUsageSql,
  type UsageRow,
} from './upstream-usage.sql';

/** How old the copy of every instance's usage may be before it is synchronised again, ms. */
export const USAGE_SYNC_MS = 250;
/** How long the rows of past minutes are kept, ms. */
const KEEP_MS = 60 * 60_000;
const MINUTE_MS = 60_000;

const NONE: MinuteUsage = Object.freeze({ requests: 0, tokens: 0 });

/**
 * Requests and tokens sent to each upstream in the current clock minute, counted by every
 * instance: what the router compares with an upstream's `rpm` and `tpm`. This process counts in
 * memory (`add`) and adds its counts to `upstream_usage` in one statement that also reads every
 * instance's totals: right after counting (`flush`; while a statement is in flight, the counts
 * made meanwhile go in the next one, so one statement at a time carries them all), and before
 * routing when the copy is older than USAGE_SYNC_MS (`sync`). Only upstreams with a ceiling are
 * counted. So a ceiling holds across instances to within what the others admitted during the
 * last USAGE_SYNC_MS.
 */
@Injectable()
export class UpstreamUsageMeter implements BeforeApplicationShutdown {
  private readonly logger = new Logger('Upstreams');
  /** Every instance's totals as of the last sync, for the minute `sharedMinute`. */
  private shared = new Map<string, MinuteUsage>();
  private sharedMinute = -1;
  /** This process's counts not yet in the table, by `${minute}|${upstreamId}`. */
  private pending = new Map<string, PendingUsage>();
  /** The counts the statement in flight carries: still ours until it answers the totals. */
  private inFlight = new Map<string, PendingUsage>();
  private syncedAt = -Infinity;
  private syncing?: Promise<void>;
  /** Counts were made while a statement was in flight: another one follows it. */
  private flushAgain = false;

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly clock: Clock,
  ) {}

  /** Counts `requests` attempts and `tokens` tokens on `upstreamId` in the current minute. */
  add(upstreamId: string, usage: Partial<MinuteUsage>, now = this.clock.now()): void {
    const minute = minuteOf(now);
    const key = `${minute}|${upstreamId}`;
    const p = this.pending.get(key) ?? {
      upstreamId,
      minute: new Date(minute * MINUTE_MS),
      requests: 0,
      tokens: 0,
    };
    p.requests += usage.requests ?? 0;
    p.tokens += usage.tokens ?? 0;
    this.pending.set(key, p);
  }

  /** The usage of `upstreamId` in the minute of `now`: every instance's as last synced, plus ours since. */
  current(upstreamId: string, now = this.clock.now()): MinuteUsage {
    const minute = minuteOf(now);
    const shared = this.sharedMinute === minute ? (this.shared.get(upstreamId) ?? NONE) : NONE;
    const key = `${minute}|${upstreamId}`;
    const mine = this.pending.get(key) ?? NONE;
    const sent = this.inFlight.get(key) ?? NONE;
    return {
      requests: shared.requests + mine.requests + sent.requests,
      tokens: shared.tokens + mine.tokens + sent.tokens,
    };
  }

  /**
   * Every instance's totals in the current minute as the table holds them now (the admin list):
   * upstream id → usage. Only upstreams with a ceiling are counted.
   */
  async totals(): Promise<Map<string, MinuteUsage>> {
    const { sql, params } = minuteTotalsSql(new Date(minuteOf(this.clock.now()) * MINUTE_MS));
    const rows = (await this.db.query(sql, params)) as UsageRow[];
    return new Map(
      rows.map((r) => [r.upstreamId, { requests: r.requests, tokens: Number(r.tokens) }]),
    );
  }

  /**
   * Synchronises with the table when the copy is older than USAGE_SYNC_MS or from another minute
   * (one statement shared by concurrent callers). A failed sync keeps the counts for the next
   * one and is logged; the old copy serves meanwhile.
   */
  async sync(): Promise<void> {
    const now = this.clock.now();
    const fresh = now.getTime() - this.syncedAt < USAGE_SYNC_MS;
    if (fresh && this.sharedMinute === minuteOf(now)) return;
    return this.syncing ?? this.startSync();
  }

  /**
   * Adds this process's counts to the table without waiting: at once, or right after the
   * statement in flight (which did not carry them) ends.
   */
  flush(): void {
    if (this.syncing) this.flushAgain = true;
    else void this.startSync();
  }

  /**
   * Resolves once no statement is in flight: every count made before the call is in the table
   * (or kept in memory after a failed statement).
   */
  async drained(): Promise<void> {
    while (this.syncing) await this.syncing;
  }

  /** The counts not yet written are written before the database closes. */
  async beforeApplicationShutdown(): Promise<void> {
    if (this.pending.size > 0) this.flush();
    await this.drained();
  }

  private startSync(): Promise<void> {
    this.syncing = this.write(this.clock.now()).finally(() => {
      this.syncing = undefined;
      if (this.flushAgain) {
        this.flushAgain = false;
        void this.startSync();
      }
    });
    return this.syncing;
  }

  private async write(now: Date): Promise<void> {
    const minute = minuteOf(now);
    this.inFlight = this.pending;
    this.pending = new Map();
    const sending = [...this.inFlight.values()];
    const rolled = minute !== this.sharedMinute;
    const { sql, params } = syncUsageSql(
      sending,
      new Date(minute * MINUTE_MS),
      rolled ? new Date(now.getTime() - KEEP_MS) : null,
    );
    try {
      // Prepared: it runs beside every limited request, and is planned once per connection.
      const rows = await preparedQuery<UsageRow>(this.db, sql, params);
      this.shared = new Map(
        rows.map((r) => [r.upstreamId, { requests: r.requests, tokens: Number(r.tokens) }]),
      );
      this.sharedMinute = minute;
      this.inFlight = new Map();
    } catch (e) {
      // Nothing was added: the counts wait for the next statement.
      this.inFlight = new Map();
      for (const s of sending) this.add(s.upstreamId, s, s.minute);
      this.logger.warn(`Synchronising upstream usage failed: ${(e as Error).message}`);
    }
    this.syncedAt = this.clock.now().getTime();
  }
}

function minuteOf(now: Date): number {
  return Math.floor(now.getTime() / MINUTE_MS);
}
