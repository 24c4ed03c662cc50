import * as v from 'valibot';
import type { Queue } from 'bullmq';
import type { SpanLogRecord } from '@aos/otlp';
import { createSignalQueue, type IngestQueueOptions } from './ingest-queue.ts';

/**
 * The queue between the OTLP logs receiver and the writer: one job per accepted request,
 * holding its GenAI event records (masked), each naming the span it belongs to.
 */
export const LOG_RECORD_QUEUE = 'log-records';

const recordSchema = v.object({
  traceId: v.pipe(v.string(), v.regex(/^[0-9a-f]{32}$/)),
  spanId: v.pipe(v.string(), v.regex(/^[0-9a-f]{16}$/)),
  timeUnixNano: v.pipe(v.string(), v.regex(/^\d{1,20}$/)),
  eventName: v.string(),
  // Any JSON value is a valid attribute value (see ingest-queue.ts).
  attributes: v.record(v.string(), v.unknown()),
  body: v.unknown(),
});

export const logRecordPayloadSchema = v.object({
  projectId: v.pipe(v.string(), v.minLength(1)),
  /** When ingest accepted the request, milliseconds since the epoch. */
  receivedAtMs: v.number(),
  records: v.array(recordSchema),
});

export interface LogRecordPayload {
  projectId: string;
  receivedAtMs: number;
  records: SpanLogRecord[];
}

export function parseLogRecordPayload(data: unknown): LogRecordPayload {
  return v.parse(logRecordPayloadSchema, data) as LogRecordPayload;
}

/** Same retries and dead-letter keeping as the span batches. */
export function createLogRecordQueue(opts: IngestQueueOptions): Queue<LogRecordPayload> {
  return createSignalQueue<LogRecordPayload>(LOG_RECORD_QUEUE, opts);
}
