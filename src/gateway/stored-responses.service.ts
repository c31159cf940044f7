import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import type { SessionUser } from '../common/auth/session-user';
import { requireScope } from '../common/auth/require-scope';
import { AppError, CommonErrorCode } from '../common/errors/app-error';
import { GatewayErrorCode } from './gateway.errors';
import { preparedQuery } from '../database/prepared';
import type { StatementPart } from '../database/statement-part';
import type { InputItem } from './responses-input.mapper';
import type { ResponseObject } from './responses.mapper';
import {
  DELETE_RESPONSE_OF_USER_SQL,
  insertResponsePart,
  RESPONSE_COST_SQL,
  RESPONSE_OF_USER_SQL,
} from './stored-responses.sql';

/** A stored response: the answer, its conversation's items, and its chat. */
export interface StoredResponse {
  body: ResponseObject;
  context: InputItem[];
  chatId: string;
}

/**
 * Responses saved with `store: true`, for `GET /v1/responses/{response_id}` and `previous_response_id`.
 * The exchange itself is saved as a chat by AiService; this keeps what a chat does not: the
 * `response` object (ids, model, usage, status) and the conversation's items as the wire sent
 * and answered them. Both ride in the settlement statement of the call, with its charge.
 */
@Injectable()
export class StoredResponses {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  private readonly logger = new Logger(StoredResponses.name);

  /**
   * The save of `body` (whose `id` is the key) with its conversation `context`, as a part of the
   * settlement statement of its call (see RecordPart: the row, the charge and the exchange commit
   * together; `chatId` is the saved chat's id as an SQL expression). Nothing in the text may fail
   * it: a lone surrogate the model answered (requests holding one are refused by the validation
   * pipe) is stored as U+FFFD, as the chat's text column stores it, since jsonb refuses `\ud800`.
   */
  part(
    user: SessionUser,
    body: ResponseObject,
    context: InputItem[],
  ): (first: number, chatId: string) => StatementPart {
    const row = {
      id: body.id,
      userId: user.id,
      body: JSON.stringify(body, wellFormed),
      context: JSON.stringify(context, wellFormed),
    };
    return (first, chatId) => insertResponsePart(row, first, chatId);
  }

  /**
   * Sets the stored `cost` of response `id` to what its settlement charged, when that is less than
   * the price it was stored with (the balance did not cover an overrun). After the charge, so it
   * never fails the request: a failure is logged.
   */
  async amendCost(user: SessionUser, id: string, stored: number, charged: number): Promise<void> {
    if (stored === charged) return;
    await preparedQuery(this.dataSource, RESPONSE_COST_SQL, [id, user.id, charged]).catch(
      (err: unknown) => this.logger.warn(`response ${id}: cost not amended: ${String(err)}`),
    );
  }

  /**
   * The caller's stored response `id` (its route is a `chats:read` route: a stored response is
   * a conversation's text). NOT_FOUND (404) for an unknown id or another user's.
   */
  async get(user: SessionUser, id: string): Promise<StoredResponse> {
    const found = await this.find(user, id);
    if (!found) throw notFound(id);
    return found;
  }

  /**
   * Deletes the caller's stored response `id` (its route is a `chats:write` route; the chat
   * stays: chats are deleted on their own route). NOT_FOUND (404) for an unknown id or another
   * user's.
   */
  async delete(user: SessionUser, id: string): Promise<void> {
    if (!RESPONSE_ID.test(id)) throw notFound(id);
    const rows = await preparedQuery(this.dataSource, DELETE_RESPONSE_OF_USER_SQL, [id, user.id]);
    if (!rows.length) throw notFound(id);
  }

  /**
   * The response a request continues (`previous_response_id`). Throws
   * PREVIOUS_RESPONSE_NOT_FOUND (400, `param: "previous_response_id"`) for an unknown id, one
   * stored without `store: true` (never kept) or another user's, as OpenAI answers; with an API
   * key, INSUFFICIENT_SCOPE (403) without `chats:write` (the exchange joins its chat).
   */
  async previous(user: SessionUser, id: string): Promise<StoredResponse> {
    const found = await this.find(user, id);
    if (!found)
      throw new AppError(
        GatewayErrorCode.PREVIOUS_RESPONSE_NOT_FOUND,
        `Previous response with id '${id}' not found.`,
        { param: 'previous_response_id' },
      );
    requireScope(user, 'chats:write', 'previous_response_id');
    return found;
  }

  private async find(user: SessionUser, id: string): Promise<StoredResponse | undefined> {
    if (!RESPONSE_ID.test(id)) return undefined;
    const rows = await preparedQuery<StoredResponse>(this.dataSource, RESPONSE_OF_USER_SQL, [
      id,
      user.id,
    ]);
    return rows[0];
  }
}

/**
 * A JSON.stringify replacer making every string and key well-formed UTF-16 (a lone surrogate
 * becomes U+FFFD), so that jsonb accepts the text.
 */
function wellFormed(this: unknown, _key: string, value: unknown): unknown {
  if (typeof value === 'string') return value.toWellFormed();
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  const keys = Object.keys(value);
  if (keys.every((k) => k.isWellFormed())) return value;
  return Object.fromEntries(keys.map((k) => [k.toWellFormed(), (value as never)[k]]));
}

/** The shape of every id `wireId('resp')` makes; anything else names no stored response. */
const RESPONSE_ID = /^resp_[0-9a-f]{48}$/;

const notFound = (id: string) =>
  new AppError(CommonErrorCode.NOT_FOUND, `Response with id '${id}' not found.`, {
    param: 'response_id',
  });
