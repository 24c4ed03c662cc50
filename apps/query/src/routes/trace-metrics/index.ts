import { Hono } from 'hono';
import * as v from 'valibot';
import { parseOrThrow, projectFor, queryParams, requireKey, type AuthEnv, type KeyAuthenticator } from '@aos/http';
import { METRIC_ATTRIBUTES, queryMetricSeries, type MetricAttribute, type Storage } from '@aos/storage';
import { bucketSeconds, intervalParam } from '../../filters/interval.ts';
import { readWindow, timeParam } from '../../filters/time.ts';

export interface TraceMetricRouteDeps {
  storage: Storage;
  auth: KeyAuthenticator;
}

const attributeValue = v.optional(v.pipe(v.string(), v.minLength(1, 'must not be empty'), v.maxLength(256, 'must be at most 256 characters')));

export const metricSeriesSchema = v.object({
  projectId: v.optional(v.string()),
  // Missing reads as "": the answer then says what a metric name looks like, not that a key is absent.
  metric: v.pipe(
    v.optional(v.string(), ''),
    v.regex(/^gen_ai\.[a-z0-9_.]{1,248}$/, 'is required: a GenAI metric name (gen_ai.…), e.g. gen_ai.client.token.usage'),
  ),
  startTime: v.optional(timeParam),
  endTime: v.optional(timeParam),
  interval: intervalParam,
  groupBy: v.optional(v.picklist(METRIC_ATTRIBUTES, `must be one of ${METRIC_ATTRIBUTES.join(', ')}`)),
  ...(Object.fromEntries(METRIC_ATTRIBUTES.map((a) => [a, attributeValue])) as Record<MetricAttribute, typeof attributeValue>),
});

/**
 * GET /trace-metrics: a GenAI metric sent over OTLP (gen_ai.client.token.usage, …) per time
 * bucket, optionally per attribute, as increases within each bucket (see queryMetricSeries).
 */
export function traceMetricRoutes(deps: TraceMetricRouteDeps) {
  const app = new Hono<AuthEnv>();
  app.get('/', requireKey(deps.auth, 'read'), async (c) => {
    const query = parseOrThrow(
      metricSeriesSchema,
      queryParams(c.req.url, { single: ['projectId', 'metric', 'startTime', 'endTime', 'interval', 'groupBy', ...METRIC_ATTRIBUTES] }),
      'query',
    );
    const projectId = projectFor(c.var.apiKey, query.projectId);
    const { startTimeMs, endTimeMs } = readWindow(query.startTime, query.endTime);
    const stepSeconds = bucketSeconds(startTimeMs, endTimeMs, query.interval);
    const where = Object.fromEntries(METRIC_ATTRIBUTES.flatMap((a) => (query[a] === undefined ? [] : [[a, query[a]]])));
    const result = await queryMetricSeries(deps.storage, {
      projectId,
      metric: query.metric,
      startTimeMs,
      endTimeMs,
      stepSeconds,
      where,
      ...(query.groupBy ? { groupBy: query.groupBy } : {}),
    });
    return c.json({ metric: query.metric, kind: result.kind || null, unit: result.unit || null, intervalSeconds: stepSeconds, groupBy: query.groupBy ?? null, series: result.series });
  });
  return app;
}
