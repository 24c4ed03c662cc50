import * as v from 'valibot';
import type { Queue } from 'bullmq';
import type { MetricPointRecord } from '@aos/otlp';
import { createSignalQueue, type IngestQueueOptions } from './ingest-queue.ts';

/**
 * The queue between the OTLP metrics receiver and the writer: one job per accepted
 * request, holding its GenAI metric data points.
 */
export const METRIC_POINT_QUEUE = 'metric-points';

const nanos = v.pipe(v.string(), v.regex(/^\d{1,20}$/));
const nullableNumber = v.nullable(v.number());

const pointSchema = v.object({
  metric: v.pipe(v.string(), v.minLength(1)),
  unit: v.string(),
  kind: v.picklist(['gauge', 'sum', 'histogram']),
  temporality: v.picklist(['delta', 'cumulative', 'unspecified']),
  series: v.pipe(v.string(), v.regex(/^[0-9a-f]{32}$/)),
  serviceName: v.string(),
  startTimeUnixNano: nanos,
  timeUnixNano: nanos,
  // Any JSON value is a valid attribute value (see ingest-queue.ts).
  attributes: v.record(v.string(), v.unknown()),
  value: nullableNumber,
  count: v.number(),
  sum: nullableNumber,
  min: nullableNumber,
  max: nullableNumber,
  explicitBounds: v.array(v.number()),
  bucketCounts: v.array(v.number()),
});

export const metricPointPayloadSchema = v.object({
  projectId: v.pipe(v.string(), v.minLength(1)),
  /** When ingest accepted the request, milliseconds since the epoch. */
  receivedAtMs: v.number(),
  points: v.array(pointSchema),
});

export interface MetricPointPayload {
  projectId: string;
  receivedAtMs: number;
  points: MetricPointRecord[];
}

export function parseMetricPointPayload(data: unknown): MetricPointPayload {
  return v.parse(metricPointPayloadSchema, data) as MetricPointPayload;
}

/** Same retries and dead-letter keeping as the span batches. */
export function createMetricPointQueue(opts: IngestQueueOptions): Queue<MetricPointPayload> {
  return createSignalQueue<MetricPointPayload>(METRIC_POINT_QUEUE, opts);
}
