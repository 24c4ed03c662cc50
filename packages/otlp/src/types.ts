/**
 * The decoded, encoding-independent form of an OTLP trace export request.
 * Both the protobuf and the JSON decoder produce exactly this shape; it is also
 * what travels through the queue, so it holds only JSON-safe values.
 */

/** An OTLP AnyValue as plain JSON: int64 values outside the safe integer range
 *  are kept as decimal strings, bytes as base64 strings, kvlists as objects. */
export type AttributeValue =
  | string
  | number
  | boolean
  | null
  | AttributeValue[]
  | { [key: string]: AttributeValue };

export type Attributes = Record<string, AttributeValue>;

export interface OtlpEvent {
  /** Nanoseconds since the epoch, as a decimal string (exceeds 2^53). */
  timeUnixNano: string;
  name: string;
  attributes: Attributes;
}

export interface OtlpLink {
  traceId: string;
  spanId: string;
  traceState: string;
  attributes: Attributes;
}

/** OTLP SpanKind numbers: 0 unspecified, 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
export type OtlpSpanKind = 0 | 1 | 2 | 3 | 4 | 5;

/** OTLP StatusCode numbers: 0 unset, 1 ok, 2 error. */
export type OtlpStatusCode = 0 | 1 | 2;

export interface OtlpSpan {
  /** 32 lowercase hex characters. */
  traceId: string;
  /** 16 lowercase hex characters. */
  spanId: string;
  /** 16 lowercase hex characters, or "" for a root span. */
  parentSpanId: string;
  traceState: string;
  name: string;
  kind: OtlpSpanKind;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  attributes: Attributes;
  droppedAttributesCount: number;
  events: OtlpEvent[];
  droppedEventsCount: number;
  links: OtlpLink[];
  status: { code: OtlpStatusCode; message: string };
}

export interface OtlpScopeSpans {
  scope: { name: string; version: string };
  spans: OtlpSpan[];
}

export interface OtlpResourceSpans {
  resource: { attributes: Attributes };
  scopeSpans: OtlpScopeSpans[];
}

export interface OtlpTraceExport {
  resourceSpans: OtlpResourceSpans[];
}

/** One OTLP log record; ids are "" when the record was emitted outside a span. */
export interface OtlpLogRecord {
  timeUnixNano: string;
  observedTimeUnixNano: string;
  severityNumber: number;
  severityText: string;
  /** The payload (for GenAI events, the message as a key-value list); null when absent. */
  body: AttributeValue;
  attributes: Attributes;
  /** 32 lowercase hex characters, or "". */
  traceId: string;
  /** 16 lowercase hex characters, or "". */
  spanId: string;
  /** The event name when the record is an event; "" otherwise. */
  eventName: string;
}

export interface OtlpScopeLogs {
  scope: { name: string; version: string };
  logRecords: OtlpLogRecord[];
}

export interface OtlpResourceLogs {
  resource: { attributes: Attributes };
  scopeLogs: OtlpScopeLogs[];
}

/** The decoded form of an ExportLogsServiceRequest, from either encoding. */
export interface OtlpLogsExport {
  resourceLogs: OtlpResourceLogs[];
}

/** The two OTLP/HTTP encodings. */
export type OtlpEncoding = 'protobuf' | 'json';

/** The OTLP metric data types; only the first three have their points read. */
export type OtlpMetricKind = 'gauge' | 'sum' | 'histogram' | 'exponential_histogram' | 'summary' | 'none';

/** OTLP AggregationTemporality numbers: 0 unspecified, 1 delta, 2 cumulative. */
export type OtlpTemporality = 0 | 1 | 2;

/**
 * A data point of a gauge, sum or histogram. Counts are numbers (exact up to 2^53, far
 * past any real count); numbers a kind does not carry are null or empty.
 */
export interface OtlpMetricPoint {
  startTimeUnixNano: string;
  timeUnixNano: string;
  attributes: Attributes;
  /** A gauge's or sum's value (as_double, or as_int as a number). */
  value: number | null;
  /** A histogram's count, sum, min, max, bounds and per-bucket counts (bounds + 1 of them, or none). */
  count: number;
  sum: number | null;
  min: number | null;
  max: number | null;
  explicitBounds: number[];
  bucketCounts: number[];
}

export interface OtlpMetric {
  name: string;
  unit: string;
  kind: OtlpMetricKind;
  temporality: OtlpTemporality;
  /** Points of a gauge, sum or histogram. */
  points: OtlpMetricPoint[];
  /** How many points an exponential histogram or summary carried (not read). */
  unreadPoints: number;
}

export interface OtlpScopeMetrics {
  scope: { name: string; version: string };
  metrics: OtlpMetric[];
}

export interface OtlpResourceMetrics {
  resource: { attributes: Attributes };
  scopeMetrics: OtlpScopeMetrics[];
}

/** The decoded form of an ExportMetricsServiceRequest, from either encoding. */
export interface OtlpMetricsExport {
  resourceMetrics: OtlpResourceMetrics[];
}
