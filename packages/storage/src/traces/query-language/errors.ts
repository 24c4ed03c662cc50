/**
 * A query that cannot be compiled: where (0-based character offset into the query text)
 * and what was expected there. The API answers it with 400 and both facts.
 */
export class QueryLanguageError extends Error {
  override readonly name = 'QueryLanguageError';
  constructor(
    readonly position: number,
    readonly expected: string,
    readonly found: string,
  ) {
    super(`at ${position}: expected ${expected} but found ${found}`);
  }
}

/** Longest query text accepted. */
export const MAX_QUERY_LENGTH = 2_000;
/** Deepest nesting of parentheses, `not` and `has span(...)`. */
export const MAX_NESTING = 32;
/** Most values in one `in [...]` list. */
export const MAX_LIST_ITEMS = 200;
/** Longest string value or map key. */
export const MAX_STRING_LENGTH = 1_000;
/** Largest magnitude of a number or duration (in milliseconds): the integers a Float64 parameter holds exactly. */
export const MAX_NUMBER = Number.MAX_SAFE_INTEGER;
