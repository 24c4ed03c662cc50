import * as v from 'valibot';
import { metricSeriesSchema } from '../../routes/trace-metrics/index.ts';
import { queryParametersOf } from '../json-schema.ts';
import type { Operation } from '../operation.ts';

const nullableText = v.nullable(v.string());

/** What GET /trace-metrics answers. */
export const metricSeries = v.object({
  metric: v.string(),
  kind: v.pipe(v.nullable(v.picklist(['histogram', 'sum', 'gauge'])), v.description('as the points were sent; null when there are none')),
  unit: nullableText,
  intervalSeconds: v.number(),
  groupBy: nullableText,
  series: v.array(
    v.object({
      group: nullableText,
      points: v.array(
        v.object({
          time: v.pipe(v.string(), v.isoTimestamp()),
          count: v.pipe(v.number(), v.description('histograms: observations in the bucket; sums and gauges: points')),
          sum: v.pipe(v.nullable(v.number()), v.description('histograms: their sum; sums: the increase of the value; gauges: the sum of the values')),
          min: v.pipe(v.nullable(v.number()), v.description('smallest observation (gauges: value) of the points; a cumulative point\'s is over its stream so far')),
          max: v.pipe(v.nullable(v.number()), v.description('largest observation (gauges: value)')),
        }),
      ),
    }),
  ),
});

const ATTRIBUTE = (name: string) => `only points whose ${name} is this value`;

export const metricOperations: Operation[] = [
  {
    method: 'get',
    path: '/api/v1/trace-metrics',
    summary: 'A GenAI metric sent over OTLP per time bucket, optionally per attribute',
    description:
      'Points of one gen_ai.* metric (gen_ai.client.token.usage, gen_ai.client.operation.duration, gen_ai.server.time_to_first_token, …) as increases within each bucket: delta points as sent, cumulative points less the previous point of their stream (looked for up to an hour before startTime). Only buckets with points are listed.',
    scope: 'read',
    // metric reads a missing value as "" only to answer with what a name looks like: it is required.
    query: queryParametersOf(metricSeriesSchema, {
      metric: 'the metric name, e.g. gen_ai.client.token.usage',
      startTime: 'ISO 8601 or epoch milliseconds; default: 7 days before endTime',
      endTime: 'ISO 8601 or epoch milliseconds; default: now',
      interval: 'bucket width (30s, 5m, 1h, 1d); default: one giving at most 120 buckets',
      groupBy: 'an attribute to split the series by',
      operationName: ATTRIBUTE('gen_ai.operation.name'),
      providerName: ATTRIBUTE('gen_ai.provider.name (or gen_ai.system)'),
      requestModel: ATTRIBUTE('gen_ai.request.model'),
      responseModel: ATTRIBUTE('gen_ai.response.model'),
      tokenType: ATTRIBUTE('gen_ai.token.type (input, output)'),
      serverAddress: ATTRIBUTE('server.address'),
      errorType: ATTRIBUTE('error.type'),
      serviceName: ATTRIBUTE("resource's service.name"),
    }).map((p) => (p.name === 'metric' ? { ...p, required: true } : p)),
    responses: { 200: { description: 'The series, one per group (a single one with group null when not grouped)', json: metricSeries } },
  },
];
