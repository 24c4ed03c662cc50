import * as v from 'valibot';
import type { Redis } from 'ioredis';
import { Queue, type Job, type JobsOptions } from 'bullmq';
import type { TelemetryScore } from '@aos/domain';
import type { OtlpTraceExport } from '@aos/otlp';
import type { Logger } from '@aos/log';
import { throttledErrorLog } from './redis.ts';

/**
 * The queue between ingest and writer: one job per accepted OTLP request. Ingest queues its
 * spans as ready-to-insert rows (SpanRowsPayload); jobs queued by an older version carry the
 * decoded export (SpanBatchPayload), which the writer still normalizes itself.
 */
export const INGEST_QUEUE = 'span-batches';

// Attribute values are whatever JSON.parse produced: any JSON value is a valid
// AttributeValue, so checking them one by one would only cost time.
const attributes = v.record(v.string(), v.unknown());
const nanos = v.pipe(v.string(), v.regex(/^\d{1,20}$/));

const spanSchema = v.object({
  traceId: v.string(),
  spanId: v.string(),
  parentSpanId: v.string(),
  traceState: v.string(),
  name: v.string(),
  kind: v.picklist([0, 1, 2, 3, 4, 5]),
  startTimeUnixNano: nanos,
  endTimeUnixNano: nanos,
  attributes,
  droppedAttributesCount: v.number(),
  events: v.array(v.object({ timeUnixNano: nanos, name: v.string(), attributes })),
  droppedEventsCount: v.number(),
  links: v.array(v.object({ traceId: v.string(), spanId: v.string(), traceState: v.string(), attributes })),
  status: v.object({ code: v.picklist([0, 1, 2]), message: v.string() }),
});

/** The older payload of an ingest job, the decoded export; the writer parses it before use. */
export const spanBatchPayloadSchema = v.object({
  projectId: v.pipe(v.string(), v.minLength(1)),
  /** When ingest accepted the request, milliseconds since the epoch. */
  receivedAtMs: v.number(),
  export: v.object({
    resourceSpans: v.array(
      v.object({
        resource: v.object({ attributes }),
        scopeSpans: v.array(
          v.object({ scope: v.object({ name: v.string(), version: v.string() }), spans: v.array(spanSchema) }),
        ),
      }),
    ),
  }),
  /** The project's dimension keys when ingest accepted the batch. */
  dimensionKeys: v.optional(v.array(v.string())),
  /** Masking rules that changed a span, keyed by the span's position in export order. */
  maskedRules: v.optional(v.record(v.pipe(v.string(), v.regex(/^\d{1,9}$/)), v.array(v.string()))),
});

export interface SpanBatchPayload {
  projectId: string;
  receivedAtMs: number;
  export: OtlpTraceExport;
  dimensionKeys?: string[];
  maskedRules?: Record<string, string[]>;
}

// The schema and the OTLP types must describe the same shape (attribute values aside).
type SchemaOutput = v.InferOutput<typeof spanBatchPayloadSchema>;
const _schemaMatchesTypes: (p: SpanBatchPayload) => SchemaOutput = (p) => p;
void _schemaMatchesTypes;

const telemetryScoreSchema = v.object({
  id: v.string(),
  traceId: v.string(),
  spanId: v.string(),
  name: v.string(),
  value: v.nullable(v.number()),
  label: v.nullable(v.string()),
  explanation: v.string(),
  responseId: v.nullable(v.string()),
  timeMs: v.number(),
});

/** What both row shapes carry besides the rows: the spans' count, and what the writer does once they are stored. */
const rowsJobEntries = {
  projectId: v.pipe(v.string(), v.minLength(1)),
  /** When ingest accepted the request, milliseconds since the epoch. */
  receivedAtMs: v.number(),
  rowCount: v.pipe(v.number(), v.integer(), v.minValue(1)),
  deploymentIds: v.array(v.number()),
  traceIds: v.array(v.string()),
  telemetryScores: v.array(telemetryScoreSchema),
};

/**
 * The payload ingest queues: the spans normalized and encoded, whose rows wait as raw bytes
 * under a Redis key of their own (rowsKeyOf), so BullMQ's JSON does not escape them a
 * second time. Checking it costs a few fields, not a walk over every span: the rows were
 * checked when ingest built them.
 */
export const spanRowsKeyPayloadSchema = v.object({
  ...rowsJobEntries,
  /** The key of the rows (rowsKeyOf the job); the writer deletes it once the job's work is done. */
  rowsKey: v.pipe(v.string(), v.minLength(1)),
  /** The rows' format: RowBinary since issue 33; absent in jobs queued before, whose rows are JSONCompactEachRow. */
  rowsFormat: v.optional(v.literal('RowBinary')),
});

export interface SpanRowsKeyPayload {
  projectId: string;
  receivedAtMs: number;
  rowsKey: string;
  rowsFormat?: 'RowBinary';
  rowCount: number;
  deploymentIds: number[];
  traceIds: string[];
  telemetryScores: TelemetryScore[];
}

/** The payload of the version before, the rows inline in the job's JSON; the writer still takes it. */
export const spanRowsPayloadSchema = v.object({
  ...rowsJobEntries,
  /** The rows as encodeSpanRows (@aos/storage) wrote them, JSONCompactEachRow; opaque to the queue. */
  rows: v.string(),
});

export interface SpanRowsPayload extends Omit<SpanRowsKeyPayload, 'rowsKey' | 'rowsFormat'> {
  rows: string;
}

const _rowsSchemaMatchesTypes: (p: SpanRowsPayload) => v.InferOutput<typeof spanRowsPayloadSchema> = (p) => p;
void _rowsSchemaMatchesTypes;
const _keySchemaMatchesTypes: (p: SpanRowsKeyPayload) => v.InferOutput<typeof spanRowsKeyPayloadSchema> = (p) => p;
void _keySchemaMatchesTypes;

/** Any job of the ingest queue: what ingest queues now, or what an older version queued. */
export type IngestJobPayload = SpanRowsKeyPayload | SpanRowsPayload | SpanBatchPayload;

/** The payload of an ingest job, in whichever shape it was queued; throws (valibot's ValiError) on anything else. */
export function parseIngestJobPayload(data: unknown): IngestJobPayload {
  if (isSpanRowsKeyPayload(data)) return v.parse(spanRowsKeyPayloadSchema, data);
  if (isSpanRowsPayload(data)) return v.parse(spanRowsPayloadSchema, data);
  return v.parse(spanBatchPayloadSchema, data) as unknown as SpanBatchPayload;
}

/** Whether a job was queued with its rows under a key of their own (it names the key), before its fields are checked. */
export function isSpanRowsKeyPayload<T>(data: T): data is T & SpanRowsKeyPayload {
  return typeof data === 'object' && data !== null && 'rowsKey' in data;
}

/** Whether a job was queued as rows, inline or under a key, before its fields are checked. */
export function isSpanRowsPayload<T>(data: T): data is T & (SpanRowsPayload | SpanRowsKeyPayload) {
  return typeof data === 'object' && data !== null && ('rows' in data || 'rowsKey' in data);
}

export interface IngestQueueOptions {
  connection: Redis;
  prefix: string;
  attempts: number;
  logger?: Logger;
}

/** Retries back off exponentially; a batch that keeps failing stays in the failed set (the dead letters). */
export function spanBatchJobOptions(attempts: number): JobsOptions {
  return {
    attempts,
    backoff: { type: 'exponential', delay: 1000 },
    removeOnComplete: true,
    removeOnFail: false,
  };
}

export function createIngestQueue(opts: IngestQueueOptions): Queue<IngestJobPayload> {
  return createSignalQueue<IngestJobPayload>(INGEST_QUEUE, opts);
}

/**
 * A queue from ingest to the writer (spans, log records, metric points): the span batches'
 * retries and dead-letter keeping, and Redis errors logged (throttled) under its name.
 */
export function createSignalQueue<Payload>(name: string, opts: IngestQueueOptions): Queue<Payload> {
  const queue = new Queue<Payload>(name, {
    connection: opts.connection,
    prefix: opts.prefix,
    defaultJobOptions: spanBatchJobOptions(opts.attempts),
  });
  queue.on('error', throttledErrorLog(opts.logger, `${name} queue error`));
  return queue;
}

export type SpanBatchJob = Job<IngestJobPayload>;
