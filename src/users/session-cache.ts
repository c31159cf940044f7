import {
  Inject,
  Injectable,
  Logger,
  OnApplicationBootstrap,
  OnApplicationShutdown,
} from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { usersConfig } from './users.config';
import { InjectDataSource } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import type { DataSource } from 'typeorm';
import { LISTENERS_SQL, listenSql, NOTIFY_SQL } from './session-cache.sql';

/**
 * The channel the `users` trigger (migration SessionCache) and the `sessions` trigger (migration
 * Sessions) notify: the payload is the changed user's or session's id.
 */
export const SESSION_CHANNEL = 'session_changed';
const MAX_ENTRIES = 20_000;
const RECONNECT_MS = 1000;
/** Longest wait of `sync` for the other processes' acknowledgements; then it goes on regardless. */
const SYNC_TIMEOUT_MS = 5000;
/** `barrier:<id>`: acknowledge once read. `ack:<id>`: a process read barrier `<id>`. */
const BARRIER_PREFIX = 'barrier:';
const ACK_PREFIX = 'ack:';
/** The listening connection's `application_name`, by which `sync` counts the listeners. */
export const LISTENER_APPLICATION_NAME = 'session-cache';

/**
 * The session rows of recent callers, kept in this process so an authenticated request needs no
 * query of its own. Correct across workers and instances because PostgreSQL says
 * when a row changes: a trigger on `users` (email, name, role, token version, preferences, or the
 * row deleted) notifies SESSION_CHANNEL, and every process LISTENs on its own connection and drops
 * that user. Whatever this process changes itself it drops at once too (`forget`). While the
 * listening connection is down nothing is cached or served from here, and a row read while a
 * notification arrived is not kept (it may predate the change). SESSION_CACHE_TTL_MS bounds an
 * entry's age all the same (0: no cache).
 *
 * Two kinds of rows share it, both keyed by their uuid: a user's session fields (UsersService)
 * and a session's own row (SessionsService), so the one notification channel serves both.
 */
@Injectable()
export class SessionCache<T extends object>
  implements OnApplicationBootstrap, OnApplicationShutdown
{
  private readonly logger = new Logger(SessionCache.name);
  private readonly entries = new Map<string, { row: T; expiresAt: number }>();
  private readonly ttlMs: number;
  /** `sync` calls waiting for acknowledgements, by barrier id. */
  private readonly barriers = new Map<string, { acks: number; expected: number; done(): void }>();
  private client?: Client;
  private listening = false;
  private closed = false;
  /** Bumped by every notification and reconnection: a read that spans one is not kept. */
  private generation = 0;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(usersConfig.KEY) users: ConfigType<typeof usersConfig>,
  ) {
    this.ttlMs = users.sessionCacheTtlMs;
  }

  /** The cached row of user `id`, else `load()`'s (kept when it is safe to). */
  async read(id: string, load: () => Promise<T | null>): Promise<T | null> {
    const hit = this.listening ? this.entries.get(id) : undefined;
    if (hit && hit.expiresAt > Date.now()) return hit.row;
    const generation = this.generation;
    const row = await load();
    if (row && this.listening && generation === this.generation) {
      this.entries.delete(id);
      if (this.entries.size >= MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
      this.entries.set(id, { row, expiresAt: Date.now() + this.ttlMs });
    }
    return row;
  }

  /** Drops user `id` (this process changed the row; the notification tells the others). */
  forget(id: string): void {
    this.entries.delete(id);
    this.generation++;
  }

  /**
   * Resolves once every process listening on SESSION_CHANNEL has read every notification
   * committed before this call, so none of them serves what they dropped: call after committing
   * a change that must hold everywhere before answering (a revoked session). How: count the
   * listening connections, notify a barrier, and wait for as many acknowledgements. Each process
   * acknowledges a barrier when its listener reads it, which is after the earlier notifications
   * (one connection delivers them in commit order). A listener that starts later begins with an
   * empty cache. Resolves at once while this process is not listening (nothing is served from
   * memory then), and after SYNC_TIMEOUT_MS at the latest (a listener that died meanwhile).
   */
  async sync(): Promise<void> {
    if (!this.listening) return;
    const id = randomUUID();
    let timer: NodeJS.Timeout | undefined;
    const waiter = { acks: 0, expected: Infinity, done: () => undefined as void };
    const acknowledged = new Promise<boolean>((resolve) => {
      waiter.done = () => resolve(true);
      timer = setTimeout(() => resolve(false), SYNC_TIMEOUT_MS);
      timer.unref();
    });
    this.barriers.set(id, waiter);
    try {
      const [{ n }] = await this.dataSource.query<{ n: number }[]>(LISTENERS_SQL, [
        LISTENER_APPLICATION_NAME,
      ]);
      waiter.expected = n;
      if (waiter.acks >= n) waiter.done();
      await this.dataSource.query(NOTIFY_SQL, [SESSION_CHANNEL, `${BARRIER_PREFIX}${id}`]);
      if (!(await acknowledged))
        this.logger.warn(`Session change: ${waiter.acks} of ${n} processes acknowledged in time`);
    } finally {
      clearTimeout(timer);
      this.barriers.delete(id);
    }
  }

  onApplicationBootstrap(): void {
    if (this.ttlMs > 0) void this.listen();
  }

  async onApplicationShutdown(): Promise<void> {
    this.closed = true;
    this.listening = false;
    await this.client?.end().catch(() => undefined);
  }

  private async listen(): Promise<void> {
    const url = (this.dataSource.options as { url?: string }).url;
    const client = new Client({
      connectionString: url,
      application_name: LISTENER_APPLICATION_NAME,
    });
    this.client = client;
    const lost = (reason: string) => {
      if (this.client !== client) return;
      this.client = undefined;
      this.listening = false;
      this.entries.clear();
      this.generation++;
      // Nothing is served from memory now, so this process no longer holds anyone up.
      for (const waiter of this.barriers.values()) waiter.done();
      client.end().catch(() => undefined);
      if (this.closed) return;
      this.logger.warn(`Session cache off until PostgreSQL answers again (${reason})`);
      setTimeout(() => void this.listen(), RECONNECT_MS).unref();
    };
    client.on('error', (err) => lost(err.message));
    client.on('end', () => lost('connection ended'));
    client.on('notification', (n) => {
      const payload = n.payload ?? '';
      if (payload.startsWith(BARRIER_PREFIX)) return this.acknowledge(payload);
      if (payload.startsWith(ACK_PREFIX)) return this.acknowledged(payload);
      if (payload) this.entries.delete(payload);
      this.generation++;
    });
    try {
      await client.connect();
      await client.query(listenSql(SESSION_CHANNEL));
      if (this.client === client && !this.closed) this.listening = true;
    } catch (err) {
      lost((err as Error).message);
    }
  }

  /** Every notification before this barrier was read here: say so (through the pool). */
  private acknowledge(barrier: string): void {
    const ack = `${ACK_PREFIX}${barrier.slice(BARRIER_PREFIX.length)}`;
    this.dataSource
      .query(NOTIFY_SQL, [SESSION_CHANNEL, ack])
      .catch((err: Error) =>
        this.logger.warn(`Could not acknowledge a session change: ${err.message}`),
      );
  }

  private acknowledged(ack: string): void {
    const waiter = this.barriers.get(ack.slice(ACK_PREFIX.length));
    if (waiter && ++waiter.acks >= waiter.expected) waiter.done();
  }
}
