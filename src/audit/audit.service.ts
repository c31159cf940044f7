import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';
import { decodeCursor, pageSize, toPage } from '../common/pagination/pagination';
import {
  AuditEvent,
  type AuditAction,
  type AuditActorType,
  type AuditTargetType,
} from './audit-event.entity';
import { insertAuditEventSql } from './audit.sql';
import { currentRequest } from './request-context';

/** What an audited action writes; the actor defaults to the request's session user. */
export interface AuditRecord {
  action: AuditAction;
  targetType: AuditTargetType;
  targetId: string | null;
  /** What changed; callers pass no secrets (no key material, no tokens). */
  details?: Record<string, unknown>;
  /** Given for webhooks and the system; otherwise read from the request. */
  actor?: { id: string | null; type: AuditActorType };
}

export interface AuditFilter {
  actorId?: string;
  targetType?: AuditTargetType;
  targetId?: string;
  action?: AuditAction;
  from?: Date;
  to?: Date;
}

/**
 * The only writer of `audit_events`. `record` writes with the caller's
 * EntityManager, so the row commits or rolls back with the action it describes.
 */
@Injectable()
export class AuditService {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * Inserts one audit row in `m`'s transaction. The actor is `event.actor`, else the request's
   * user (`api_key` when they came with a key, `admin` for role ADMIN, `user` otherwise), else
   * the system; request id and client address come from the request, when there is one.
   */
  async record(m: EntityManager, event: AuditRecord): Promise<void> {
    const req = currentRequest();
    const actor = event.actor ?? actorOf(req.user);
    const insert = insertAuditEventSql({
      actorId: actor.id,
      actorType: actor.type,
      action: event.action,
      targetType: event.targetType,
      targetId: event.targetId,
      details: JSON.stringify(event.details ?? {}),
      requestId: req.requestId,
      ip: req.ip,
    });
    await m.query(insert.sql, insert.params);
  }

  /** Audit rows matching `filter`, newest first, keyset-paginated (the admin list). */
  async list(
    filter: AuditFilter,
    limit?: number,
    cursor?: string,
  ): Promise<{ data: AuditEvent[]; nextCursor: string | null }> {
    const size = pageSize(limit);
    const qb = this.dataSource
      .getRepository(AuditEvent)
      .createQueryBuilder('a')
      .orderBy('a.at', 'DESC')
      .addOrderBy('a.id', 'DESC')
      .take(size + 1);
    if (filter.actorId) qb.andWhere('a.actorId = :actorId', filter);
    if (filter.targetType) qb.andWhere('a.targetType = :targetType', filter);
    if (filter.targetId) qb.andWhere('a.targetId = :targetId', filter);
    if (filter.action) qb.andWhere('a.action = :action', filter);
    if (filter.from) qb.andWhere('a.at >= :from', filter);
    if (filter.to) qb.andWhere('a.at < :to', filter);
    if (cursor) qb.andWhere('(a.at, a.id) < (:at, :id)', decodeCursor(cursor));
    return toPage(await qb.getMany(), size, (e) => e.at);
  }
}

function actorOf(
  user: { id: string; role: string; apiKey?: unknown } | null,
): NonNullable<AuditRecord['actor']> {
  if (!user) return { id: null, type: 'system' };
  if (user.apiKey) return { id: user.id, type: 'api_key' };
  return { id: user.id, type: user.role === 'ADMIN' ? 'admin' : 'user' };
}
