import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';
import {
  CHATS_WITH_PENDING_SQL,
  NEAREST_SQL,
  PENDING_MESSAGES_SQL,
  STORE_VECTORS_SQL,
} from './message-vectors.sql';

/** A message still to embed, with the user its embedding is charged to. */
export interface PendingMessage {
  id: string;
  content: string;
  /** The author; for an assistant reply, the author of the message it answers (else the owner). */
  payerId: string;
}

/**
 * The one place that knows how vectors are stored and ranked: `message_vectors`,
 * real[] at unit length, ranked by an exact dot product (= cosine) in SQL. Moving to pgvector
 * with an HNSW index changes this file and a migration only (docs/search.md).
 */
@Injectable()
export class MessageVectorsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * Up to `limit` messages of `chatId` without a vector, oldest first, each with its payer:
   * its author, or for an assistant reply (no author) the author of the closest earlier user
   * message of the chat, else the chat's owner. Payers paused for this chat are left out.
   */
  pending(chatId: string, limit: number): Promise<PendingMessage[]> {
    return this.dataSource.query(PENDING_MESSAGES_SQL, [chatId, limit]);
  }

  /**
   * Stores the vectors (normalised to unit length here) of the messages that still exist and
   * have none; returns the ids stored. A message deleted meanwhile is skipped; one stored by
   * someone else meanwhile is left as it is. Runs in `manager`'s transaction.
   */
  async store(
    manager: EntityManager,
    model: string,
    rows: { messageId: string; vector: number[] }[],
  ): Promise<string[]> {
    if (rows.length === 0) return [];
    const stored: { id: string }[] = await manager.query(STORE_VECTORS_SQL, [
      rows.map((r) => r.messageId),
      rows.map((r) => toPgArray(unit(r.vector))),
      model,
    ]);
    return stored.map((r) => r.id);
  }

  /**
   * The `limit` messages nearest to `vector` by cosine among the chats `userId` may read (the
   * access check is in the statement), vectors of `model` only. An exact scan: every vector of
   * the readable chats is compared (docs/search.md has the curve). Returns `{id, score}`.
   */
  nearest(
    userId: string,
    model: string,
    vector: number[],
    limit: number,
  ): Promise<{ id: string; score: number }[]> {
    return this.dataSource.query(NEAREST_SQL, [userId, toPgArray(unit(vector)), model, limit]);
  }

  /** Chats with at least one message without a vector (backfill: `npm run search:reindex`). */
  async chatsWithPending(): Promise<string[]> {
    const rows: { chatId: string }[] = await this.dataSource.query(CHATS_WITH_PENDING_SQL);
    return rows.map((r) => r.chatId);
  }
}

/** The vector scaled to length 1 (so a dot product is the cosine); a zero vector stays zero. */
export function unit(vector: number[]): number[] {
  const norm = Math.sqrt(vector.reduce((s, x) => s + x * x, 0));
  return norm > 0 ? vector.map((x) => x / norm) : vector;
}

function toPgArray(vector: number[]): string {
  return `{${vector.join(',')}}`;
}
