import * as v from 'valibot';
import { ApiError, parseOrThrow } from '@aos/http';
import { TRACE_SORT_FIELDS, type TraceSortField } from '@aos/storage';

/** Sort fields come from the storage allow-list; nothing else reaches ORDER BY. */
const SORT_FIELDS = Object.keys(TRACE_SORT_FIELDS) as [TraceSortField, ...TraceSortField[]];

export const PAGE_PARAMS = ['limit', 'cursor', 'sortBy', 'sortOrder'] as const;
export const MAX_PAGE_SIZE = 500;

/** The `limit` query parameter of every list: 1 to MAX_PAGE_SIZE, `fallback` when absent. */
export function limitParam(fallback: number) {
  return v.optional(
    v.pipe(
      v.string(),
      v.regex(/^\d+$/, 'must be a whole number'),
      v.transform(Number),
      v.minValue(1, 'must be at least 1'),
      v.maxValue(MAX_PAGE_SIZE, `must be at most ${MAX_PAGE_SIZE}`),
    ),
    String(fallback),
  );
}

/**
 * The `cursor` of lists in id order: the last id of the previous page, base64url-encoded so
 * clients treat it as opaque. Decodes to the id, which must match `idPattern`.
 */
export function idCursorParam(idPattern: RegExp) {
  return v.optional(
    v.pipe(
      v.string(),
      v.transform((s) => Buffer.from(s, 'base64url').toString('utf8')),
      v.regex(idPattern, 'not a cursor issued by this API: pass back a nextCursor unchanged'),
    ),
  );
}

/**
 * Times as cursors carry them. Nanoseconds: up to 9.2e18, inside DateTime64(9), which ends at
 * 2^63 ns. Milliseconds: up to 13 digits (the year 2286), inside DateTime64(3). A longer
 * number is an edited cursor the engine could not convert.
 */
export const NANOS_CURSOR_PART = /^(\d{1,18}|[1-8]\d{18}|9[01]\d{17})$/;
export const MILLIS_CURSOR_PART = /^\d{1,13}$/;

/** The `nextCursor` of a list in id order (see idCursorParam). */
export function encodeIdCursor(lastId: string | null): string | null {
  return lastId === null ? null : Buffer.from(lastId).toString('base64url');
}

export const pageSchema = v.object({
  limit: limitParam(50),
  cursor: v.optional(v.string()),
  sortBy: v.optional(v.picklist(SORT_FIELDS, `must be one of: ${SORT_FIELDS.join(', ')}`), 'startTime'),
  sortOrder: v.optional(v.picklist(['asc', 'desc'], 'must be asc or desc'), 'desc'),
});

export interface PageParams {
  limit: number;
  sortBy: TraceSortField;
  sortOrder: 'asc' | 'desc';
  /** The decoded cursor, when one was given. */
  after: Record<string, string> | undefined;
}

/**
 * Page parameters. Cursors are opaque to clients: base64url JSON carrying the sort key of
 * the last row and the sort they were made for, so a cursor cannot be replayed against
 * another order.
 */
export function parsePage(query: Record<string, unknown>): PageParams {
  const picked = Object.fromEntries(PAGE_PARAMS.filter((k) => k in query).map((k) => [k, query[k]]));
  const parsed = parseOrThrow(pageSchema, picked, 'pagination');
  let after: Record<string, string> | undefined;
  if (parsed.cursor !== undefined) {
    after = decodeCursor(parsed.cursor);
    if (after.sort !== `${parsed.sortBy}:${parsed.sortOrder}`) {
      throw new ApiError('invalid_request', 'cursor was made for another sort order', [
        { field: 'cursor', message: 'does not match sortBy/sortOrder' },
      ]);
    }
  }
  return { limit: parsed.limit, sortBy: parsed.sortBy, sortOrder: parsed.sortOrder, after };
}

export function encodeCursor(page: Pick<PageParams, 'sortBy' | 'sortOrder'>, key: Record<string, string>): string {
  return encodeKeyCursor({ ...key, sort: `${page.sortBy}:${page.sortOrder}` });
}

/** An opaque cursor holding the sort key of the last row of a page. */
export function encodeKeyCursor(key: Record<string, string>): string {
  return Buffer.from(JSON.stringify(key)).toString('base64url');
}

/**
 * Decodes a cursor made by `encodeKeyCursor` (or `encodeCursor`): each named field must be a
 * string matching its pattern; anything else is a 400 naming `cursor`.
 */
export function decodeKeyCursor<K extends string>(cursor: string, fields: Record<K, RegExp>): Record<K, string> {
  const value = decodeCursor(cursor);
  for (const [field, pattern] of Object.entries(fields) as Array<[K, RegExp]>) {
    const part = value[field];
    if (part === undefined || !pattern.test(part)) throw invalidCursor();
  }
  return value as Record<K, string>;
}

function decodeCursor(cursor: string): Record<string, string> {
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (value && typeof value === 'object' && Object.values(value).every((x) => typeof x === 'string')) {
      return value as Record<string, string>;
    }
  } catch {
    // fall through to the error below
  }
  throw invalidCursor();
}

function invalidCursor(): ApiError {
  return new ApiError('invalid_request', 'invalid cursor: pass back the nextCursor of a previous page unchanged', [
    { field: 'cursor', message: 'not a cursor issued by this API' },
  ]);
}
