import * as v from 'valibot';

/**
 * A number as a query parameter, bound for the engine as Float64: finite, and no larger
 * in magnitude than the integers a double holds exactly (a larger one is refused on its way
 * to the engine, and means nothing a stored cost, duration or score could reach).
 */
export const numberParam = v.pipe(
  v.string(),
  v.minLength(1, 'must be a number'),
  v.transform(Number),
  v.number(),
  v.check((n) => Number.isFinite(n), 'must be a number'),
  v.check((n) => Math.abs(n) <= Number.MAX_SAFE_INTEGER, `must be between -${Number.MAX_SAFE_INTEGER} and ${Number.MAX_SAFE_INTEGER}`),
);
