import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { InjectDataSource } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import type { DataSource } from 'typeorm';
import type { AppConfig } from '../config/app.config';

/**
 * The channel the `users` trigger (migration SessionCache) and the `sessions` trigger (migration
 * Sessions) notify: the payload is the changed user's or session's id.
 */
export const SESSION_CHANNEL = 'session_changed';
const MAX_ENTRIES = 20_000;
const RECONNECT_MS = 1000;
/** Longest wait of `sync` for its own notification; past it the caller goes on regardless. */
const SYNC_TIMEOUT_MS = 5000;
const BARRIER_PREFIX = 'barrier:';

/**
 * The session rows of recent callers, kept in this process so an authenticated request needs no
 * query of its own (issue 20 §3). Correct across workers and instances because PostgreSQL says
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
  /** `sync` calls waiting for their barrier notification, by barrier payload. */
  private readonly barriers = new Map<string, () => void>();
  private client?: Client;
  private listening = false;
  private closed = false;
  /** Bumped by every notification and reconnection: a read that spans one is not kept. */
  private generation = 0;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    config: ConfigService<AppConfig, true>,
  ) {
    this.ttlMs = config.get('auth', { infer: true }).sessionCacheTtlMs;
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
   * Resolves once every notification committed before this call has reached this process's
   * listener: it notifies a barrier of its own and waits for it. PostgreSQL queues notifications
   * in commit order and wakes every listening connection at each commit, so by then the other
   * processes' connections were woken for the earlier ones too, one full round trip ago. Call
   * after committing a change that must be seen everywhere before answering (a revoked session).
   * Resolves at once while not listening (nothing is served from memory then), and after
   * SYNC_TIMEOUT_MS at the latest.
   */
  async sync(): Promise<void> {
    if (!this.listening) return;
    const payload = `${BARRIER_PREFIX}${randomUUID()}`;
    let timer: NodeJS.Timeout | undefined;
    const arrived = new Promise<void>((resolve) => {
      this.barriers.set(payload, resolve);
      timer = setTimeout(resolve, SYNC_TIMEOUT_MS);
      timer.unref();
    });
    try {
      await this.dataSource.query('SELECT pg_notify($1, $2)', [SESSION_CHANNEL, payload]);
      await arrived;
    } finally {
      clearTimeout(timer);
      this.barriers.delete(payload);
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
    const client = new Client({ connectionString: url });
    this.client = client;
    const lost = (reason: string) => {
      if (this.client !== client) return;
      this.client = undefined;
      this.listening = false;
      this.entries.clear();
      this.generation++;
      for (const release of this.barriers.values()) release();
      client.end().catch(() => undefined);
      if (this.closed) return;
      this.logger.warn(`Session cache off until PostgreSQL answers again (${reason})`);
      setTimeout(() => void this.listen(), RECONNECT_MS).unref();
    };
    client.on('error', (err) => lost(err.message));
    client.on('end', () => lost('connection ended'));
    client.on('notification', (n) => {
      if (n.payload?.startsWith(BARRIER_PREFIX)) return this.barriers.get(n.payload)?.();
      if (n.payload) this.entries.delete(n.payload);
      this.generation++;
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${SESSION_CHANNEL}`);
      if (this.client === client && !this.closed) this.listening = true;
    } catch (err) {
      lost((err as Error).message);
    }
  }
}
