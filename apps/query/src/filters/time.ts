import * as v from 'valibot';

/** A point in time as a query parameter: ISO 8601 (`2026-01-01T00:00:00Z`) or epoch milliseconds. */
export const timeParam = v.pipe(
  v.string(),
  v.transform((s) => (/^\d{10,16}$/.test(s) ? Number(s) : Date.parse(s))),
  v.number(),
  v.check((n) => Number.isFinite(n), 'must be an ISO 8601 time or epoch milliseconds'),
);
