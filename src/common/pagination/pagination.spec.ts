import { AppError, COMMON_ERRORS, type CommonErrorCode } from '../errors/app-error';
import { decodeCursor, encodeCursor, pageSize, toPage } from './pagination';

const ID = '3f2b8c1e-9a4d-4e6f-8b7a-1c2d3e4f5a6b';
const forge = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');

describe('cursor pagination', () => {
  it('round-trips a position with millisecond precision', () => {
    const at = new Date('2026-11-21T10:11:12.345Z');
    expect(decodeCursor(encodeCursor(at, ID))).toEqual({ at, id: ID });
  });

  it.each([
    ['garbage', 'not-a-cursor'],
    ['a non-uuid id', forge(['2026-01-01T00:00:00Z', '-'.repeat(36)])],
    ['a date out of range', forge(['-271821-04-20T00:00:00Z', ID])],
    ['a non-string date', forge([0, ID])],
    ['an invalid date', forge(['tomorrow', ID])],
  ])('refuses %s with a 400 AppError', (_name, cursor) => {
    expect(() => decodeCursor(cursor)).toThrow(AppError);
    try {
      decodeCursor(cursor);
    } catch (err) {
      expect(COMMON_ERRORS[(err as AppError).code as CommonErrorCode].status).toBe(400);
    }
  });

  it('defaults the page size to 50 and clamps it to 100', () => {
    expect(pageSize()).toBe(50);
    expect(pageSize(7)).toBe(7);
    expect(pageSize(1000)).toBe(100);
  });

  it('returns a cursor only when a further row was fetched', () => {
    const at = new Date('2026-01-01T00:00:00Z');
    const rows = [1, 2, 3].map((n) => ({ id: `${ID.slice(0, -1)}${n}`, at }));
    const full = toPage(rows, 2, (r) => r.at);
    expect(full.data).toHaveLength(2);
    expect(decodeCursor(full.nextCursor!)).toEqual({ at, id: rows[1].id });
    expect(toPage(rows, 3, (r) => r.at).nextCursor).toBeNull();
  });
});
