import { Hono } from 'hono';
import * as v from 'valibot';
import { ApiError, parseOrThrow, queryParams, type AuthEnv } from '@aos/http';
import { MEASURE_NAMES, groupByOf, queryTimeseries, type Storage } from '@aos/storage';
import { ensureDimensionKeys } from '../../filters/known-dimensions.ts';
import { dimensionOfGroup, groupNameSchema } from '../../filters/group-by.ts';
import { bucketSeconds, intervalParam } from '../../filters/interval.ts';
import { TRACE_FILTER_PARAMS, TRACE_FILTER_REPEATED_PARAMS, parseTraceFilterCheckingDimensions } from '../../filters/trace-filter.ts';

export const timeseriesSchema = v.object({
  measure: v.picklist(MEASURE_NAMES, `must be one of ${MEASURE_NAMES.join(', ')}`),
  interval: intervalParam,
  groupBy: v.optional(groupNameSchema),
  top: v.optional(v.pipe(v.string(), v.regex(/^\d+$/, 'must be a whole number'), v.transform(Number), v.minValue(1), v.maxValue(50)), '10'),
  measureScore: v.optional(v.pipe(v.string(), v.minLength(1, 'must not be empty'))),
});

/**
 * GET /traces/timeseries: a measure of the catalogue per time bucket, optionally per group.
 * Expects `requireKey(..., 'read')` to have run.
 */
export function timeseriesRoutes(deps: { storage: Storage }) {
  const app = new Hono<AuthEnv>();
  app.get('/', async (c) => {
    const query = queryParams(c.req.url, {
      single: [...TRACE_FILTER_PARAMS, 'measure', 'interval', 'groupBy', 'top', 'measureScore'],
      repeated: TRACE_FILTER_REPEATED_PARAMS,
    });
    const filter = await parseTraceFilterCheckingDimensions(query, c.var.apiKey, deps.storage);
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
    const stepSeconds = bucketSeconds(filter.startTimeMs, filter.endTimeMs, parsed.interval);
    const series = await queryTimeseries(deps.storage, filter, {
      measure: parsed.measure,
      stepSeconds,
      topGroups: parsed.top,
      ...(parsed.groupBy ? { groupBy: groupByOf(parsed.groupBy) } : {}),
      ...(parsed.measureScore ? { scoreName: parsed.measureScore } : {}),
    });
    return c.json({ measure: parsed.measure, intervalSeconds: stepSeconds, groupBy: parsed.groupBy ?? null, series });
  });
  return app;
}
