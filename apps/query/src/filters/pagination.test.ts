import { describe, expect, it } from 'vitest';
import { ApiError } from '@aos/http';
import { encodeCursor, MAX_PAGE_SIZE, parsePage } from './pagination.ts';

function apiError(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ApiError);
    return err as ApiError;
  }
  throw new Error('expected an ApiError');
}

describe('parsePage', () => {
  it('defaults to 50 rows by startTime, newest first', () => {
    expect(parsePage({})).toEqual({ limit: 50, sortBy: 'startTime', sortOrder: 'desc', after: undefined });
  });

  it('ignores parameters that are not about pages', () => {
    expect(parsePage({ startTime: 'x', limit: '7' }).limit).toBe(7);
  });

  it('accepts a limit from 1 to the maximum', () => {
    expect(parsePage({ limit: '1' }).limit).toBe(1);
    expect(parsePage({ limit: String(MAX_PAGE_SIZE) }).limit).toBe(MAX_PAGE_SIZE);
  });

  it.each(['0', String(MAX_PAGE_SIZE + 1), '-1', '2.5', 'ten'])('refuses limit=%s naming the field', (limit) => {
    const err = apiError(() => parsePage({ limit }));
    expect(err.status).toBe(400);
    expect(err.details.map((d) => d.field)).toEqual(['limit']);
  });

  it('refuses an unknown sortBy or sortOrder', () => {
    expect(parsePage({ sortBy: 'cost' }).sortBy).toBe('cost');
    expect(apiError(() => parsePage({ sortBy: 'colour' })).details[0]?.field).toBe('sortBy');
    expect(apiError(() => parsePage({ sortOrder: 'up' })).details[0]?.field).toBe('sortOrder');
  });

  it('round-trips a cursor made for the same sort', () => {
    const key = { startNs: '1767225600123456789', traceId: 'abc' };
    const cursor = encodeCursor({ sortBy: 'startTime', sortOrder: 'asc' }, key);
    const page = parsePage({ cursor, sortOrder: 'asc', limit: '10' });
    expect(page.after).toMatchObject(key);
    expect(page.limit).toBe(10);
  });

  it('refuses a cursor made for another sort order', () => {
    const cursor = encodeCursor({ sortBy: 'startTime', sortOrder: 'asc' }, { startNs: '1', traceId: 't' });
    const err = apiError(() => parsePage({ cursor, sortOrder: 'desc' }));
    expect(err.status).toBe(400);
    expect(err.details[0]?.field).toBe('cursor');
  });

  it.each([
    ['garbage', 'not a cursor!!'],
    ['non-JSON base64', Buffer.from('hello').toString('base64url')],
    ['a JSON string', Buffer.from('"x"').toString('base64url')],
    ['non-string values', Buffer.from('{"startNs":1,"sort":"startTime:desc"}').toString('base64url')],
  ])('refuses a cursor that is %s', (_what, cursor) => {
    const err = apiError(() => parsePage({ cursor }));
    expect(err.code).toBe('invalid_request');
    expect(err.details.map((d) => d.field)).toEqual(['cursor']);
  });
});
