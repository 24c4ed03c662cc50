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
