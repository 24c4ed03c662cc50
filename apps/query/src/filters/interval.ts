import * as v from 'valibot';
import { ApiError } from '@aos/http';

/** Bucket widths chosen automatically: the smallest that gives at most TARGET_BUCKETS buckets. */
const AUTO_STEPS = [60, 300, 900, 1800, 3600, 10_800, 21_600, 43_200, 86_400, 604_800];
const TARGET_BUCKETS = 120;
const MAX_BUCKETS = 1000;
const UNIT_SECONDS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400 };

/** The `interval` query parameter of time-bucketed reads, in seconds. */
export const intervalParam = v.optional(
  v.pipe(
    v.string(),
    v.regex(/^\d+[smhd]$/, 'must be a number and a unit: 30s, 5m, 1h, 1d'),
    v.transform((s) => Number(s.slice(0, -1)) * UNIT_SECONDS[s.slice(-1)]!),
    v.minValue(1, 'must be at least 1s'),
  ),
);

/** The bucket width for a window: the one asked for, or a readable one; 400 when it gives too many buckets. */
export function bucketSeconds(startMs: number, endMs: number, interval: number | undefined): number {
  const windowSeconds = (endMs - startMs) / 1000;
  const step = interval ?? AUTO_STEPS.find((s) => windowSeconds / s <= TARGET_BUCKETS) ?? AUTO_STEPS.at(-1)!;
  if (windowSeconds / step > MAX_BUCKETS) {
    throw new ApiError('invalid_request', `interval: the window would have more than ${MAX_BUCKETS} buckets; use a larger interval`, [
      { field: 'interval', message: `gives more than ${MAX_BUCKETS} buckets for this window` },
    ]);
  }
  return step;
}
