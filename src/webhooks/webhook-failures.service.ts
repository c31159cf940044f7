import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { AppError, CommonErrorCode } from '../common/errors/app-error';
import { decodeCursor, pageSize, toPage } from '../common/pagination/pagination';
import { WebhookFailure } from './webhook-failure.entity';
import {
  EVENT_SEEN_SQL,
  RECORD_FAILURE_SQL,
  RECORD_RECONCILIATION_SQL,
  RESOLVE_FAILURE_SQL,
} from './webhooks.sql';

/** A processor event built from a processor object read by the reconciliation. */
export interface ReconciledEvent {
  id: string;
  object: 'event';
  type: 'payment_intent.succeeded' | 'checkout.session.completed';
  created: number;
  livemode: boolean;
  data: { object: object };
}

/** The dead-letter table of webhook events: record, resolve, list, read. */
@Injectable()
export class WebhookFailuresService {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * Records a failed attempt of `eventId`: a new row with attempt 1, or one more attempt, the
   * latest error and time on the existing row (the first payload is kept).
   */
  async record(eventId: string, type: string, payload: string, error: Error): Promise<void> {
    const message = `${error.name}: ${error.message}`.slice(0, 1000);
    await this.dataSource.query(RECORD_FAILURE_SQL, [eventId, type, payload, message]);
  }

  /**
   * Stores `event`, built by the reconciliation for a paid payment with no grant, with reason
   * `reconciliation` so an admin can replay it. True when stored now; false when the event is
   * stored already or was processed (its grant exists): nothing is added twice.
   */
  async recordReconciliation(event: ReconciledEvent, message: string): Promise<boolean> {
    if (await this.processed(event.id)) return false;
    const rows = await this.dataSource.query(RECORD_RECONCILIATION_SQL, [
      event.id,
      event.type,
      JSON.stringify(event),
      message.slice(0, 1000),
    ]);
    return rows.length > 0;
  }

  /** The event was processed (or found already processed): it leaves the table. */
  async resolve(eventId: string): Promise<void> {
    await this.dataSource.query(RESOLVE_FAILURE_SQL, [eventId]);
  }

  /** The stored failure; null when there is none. */
  find(eventId: string): Promise<WebhookFailure | null> {
    return this.dataSource.getRepository(WebhookFailure).findOneBy({ eventId });
  }

  /** Whether the event's effect has been applied (its id is in `webhook_events`). */
  async processed(eventId: string): Promise<boolean> {
    const rows = await this.dataSource.query(EVENT_SEEN_SQL, [eventId]);
    return rows.length > 0;
  }

  /** Stored failures, most recent attempt first, keyset-paginated. */
  async list(
    limit?: number,
    cursor?: string,
  ): Promise<{ data: (WebhookFailure & { id: string })[]; nextCursor: string | null }> {
    const size = pageSize(limit);
    const qb = this.dataSource
      .getRepository(WebhookFailure)
      .createQueryBuilder('f')
      .orderBy('f.lastAttemptAt', 'DESC')
      .addOrderBy('f.eventId', 'DESC')
      .take(size + 1);
    if (cursor) {
      const pos = decodeCursor(cursor, 'any');
      qb.where('(f.lastAttemptAt, f.eventId) < (:at, :id)', pos);
    }
    const rows = (await qb.getMany()).map((f) => Object.assign(f, { id: f.eventId }));
    return toPage(rows, size, (f) => f.lastAttemptAt);
  }

  /** Throws NOT_FOUND (404) for an event id that is neither failed nor processed. */
  notFound(): AppError {
    return new AppError(CommonErrorCode.NOT_FOUND, 'No failed webhook event with this id');
  }
}
