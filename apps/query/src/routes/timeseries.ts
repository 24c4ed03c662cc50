import type { Handler } from 'hono';
import * as v from 'valibot';
import { ApiError, parseOrThrow, queryParams, type AuthEnv } from '@aos/http';
import { MEASURE_NAMES, groupByOf, queryTimeseries, type Storage } from '@aos/storage';
import { ensureDimensionKeys } from '../filters/dimension-keys.ts';
import { dimensionOfGroup, groupNameSchema } from '../filters/group-by.ts';
import { TRACE_FILTER_PARAMS, TRACE_FILTER_REPEATED_PARAMS, readTraceFilter } from '../filters/trace-filter.ts';

/** Bucket widths chosen automatically: the smallest that gives at most TARGET_BUCKETS buckets. */
const AUTO_STEPS = [60, 300, 900, 1800, 3600, 10_800, 21_600, 43_200, 86_400, 604_800];
const TARGET_BUCKETS = 120;
const MAX_BUCKETS = 1000;
const UNIT_SECONDS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400 };

const timeseriesSchema = v.object({
  measure: v.picklist(MEASURE_NAMES, `must be one of ${MEASURE_NAMES.join(', ')}`),
  interval: v.optional(
    v.pipe(
      v.string(),
      v.regex(/^\d+[smhd]$/, 'must be a number and a unit: 30s, 5m, 1h, 1d'),
      v.transform((s) => Number(s.slice(0, -1)) * UNIT_SECONDS[s.slice(-1)]!),
      v.minValue(1, 'must be at least 1s'),
    ),
  ),
  groupBy: v.optional(groupNameSchema),
  top: v.optional(v.pipe(v.string(), v.regex(/^\d+$/, 'must be a whole number'), v.transform(Number), v.minValue(1), v.maxValue(50)), '10'),
  measureScore: v.optional(v.pipe(v.string(), v.minLength(1, 'must not be empty'))),
});

/** GET /traces/timeseries: a measure of the catalogue per time bucket, optionally per group. */
export function timeseriesHandler(deps: { storage: Storage }): Handler<AuthEnv> {
  return async (c) => {
    const query = queryParams(c.req.url, {
      single: [...TRACE_FILTER_PARAMS, 'measure', 'interval', 'groupBy', 'top', 'measureScore'],
      repeated: TRACE_FILTER_REPEATED_PARAMS,
    });
    const filter = await readTraceFilter(query, c.var.apiKey, deps.storage);
    const parsed = parseOrThrow(
      timeseriesSchema,
      { measure: query.measure, interval: query.interval, groupBy: query.groupBy, top: query.top, measureScore: query.measureScore },
      'timeseries',
    );
    if (parsed.measure === 'score_mean' && parsed.measureScore === undefined) {
      throw new ApiError('invalid_request', 'measureScore: score_mean needs the name of the score', [
        { field: 'measureScore', message: 'required with measure=score_mean' },
      ]);
    }
    const dimension = dimensionOfGroup(parsed.groupBy);
    if (dimension !== undefined) await ensureDimensionKeys(deps.storage, filter.projectId, [dimension], 'groupBy');
    const windowSeconds = (filter.endTimeMs - filter.startTimeMs) / 1000;
    const stepSeconds = parsed.interval ?? AUTO_STEPS.find((s) => windowSeconds / s <= TARGET_BUCKETS) ?? AUTO_STEPS.at(-1)!;
    if (windowSeconds / stepSeconds > MAX_BUCKETS) {
      throw new ApiError('invalid_request', `interval: the window would have more than ${MAX_BUCKETS} buckets; use a larger interval`, [
        { field: 'interval', message: `gives more than ${MAX_BUCKETS} buckets for this window` },
      ]);
    }
    const series = await queryTimeseries(deps.storage, filter, {
      measure: parsed.measure,
      stepSeconds,
      topGroups: parsed.top,
      ...(parsed.groupBy ? { groupBy: groupByOf(parsed.groupBy) } : {}),
      ...(parsed.measureScore ? { scoreName: parsed.measureScore } : {}),
    });
    return c.json({ measure: parsed.measure, intervalSeconds: stepSeconds, groupBy: parsed.groupBy ?? null, series });
  };
}
