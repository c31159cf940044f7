import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, IsString, MaxLength, Min } from 'class-validator';
import { AppError, CommonErrorCode } from '../errors/app-error';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 100;

/** `?limit=` (default 50, values above 100 are clamped) and `?cursor=` from a previous page. */
export class PageQueryDto {
  @ApiPropertyOptional({ default: DEFAULT_PAGE_SIZE, maximum: MAX_PAGE_SIZE, minimum: 1 })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  limit?: number;

  @ApiPropertyOptional({ description: 'nextCursor of the previous page' })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  cursor?: string;
}

/** Keyset position: the sort timestamp and id of the last row of the previous page. */
export interface CursorPosition {
  at: Date;
  id: string;
}

export function pageSize(limit?: number): number {
  return Math.min(limit ?? DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE);
}

export function encodeCursor(at: Date, id: string): string {
  return Buffer.from(JSON.stringify([at.toISOString(), id])).toString('base64url');
}

/**
 * Throws AppError VALIDATION_FAILED (400) for a cursor this API did not issue. `ids`: the rows'
 * ids are UUIDs (default), or `any` string of up to 255 characters (e.g. processor event ids).
 */
export function decodeCursor(cursor: string, ids: 'uuid' | 'any' = 'uuid'): CursorPosition {
  try {
    const [at, id] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown[];
    const validId =
      typeof id === 'string' &&
      (ids === 'uuid' ? UUID.test(id) : id.length > 0 && id.length <= 255);
    if (typeof at !== 'string' || !validId) throw new Error('bad');
    const date = new Date(at);
    const year = date.getUTCFullYear();
    // Within PostgreSQL's timestamptz range, so a forged cursor is a 400, not a failed query.
    if (Number.isNaN(date.getTime()) || year < 1 || year > 9999) throw new Error('bad');
    return { at: date, id };
  } catch {
    throw new AppError(CommonErrorCode.VALIDATION_FAILED, 'cursor is invalid');
  }
}

/**
 * Splits `rows` (fetched with `limit + 1`) into a page and the cursor of its last row,
 * or null when no more rows exist.
 */
export function toPage<T extends { id: string }>(
  rows: T[],
  limit: number,
  sortKey: (row: T) => Date,
): { data: T[]; nextCursor: string | null } {
  const data = rows.slice(0, limit);
  const last = data[data.length - 1];
  return {
    data,
    nextCursor: rows.length > limit && last ? encodeCursor(sortKey(last), last.id) : null,
  };
}
