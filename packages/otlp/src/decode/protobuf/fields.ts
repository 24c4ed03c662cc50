/**
 * The fields of each OTLP message the protobuf decoder reads, by field number,
 * with the wire type each must arrive with (names as spelled in ../../proto), and
 * the decoder's error messages.
 */
import type protobuf from 'protobufjs';
import { OtlpDecodeError } from '../../errors.ts';

export const WIRE_VARINT = 0;
export const WIRE_I64 = 1;
export const WIRE_LEN = 2;
export const WIRE_I32 = 5;

/** A field tag: field number and wire type, as it appears on the wire. */
export const tag = (field: number, wireType: number): number => (field << 3) | wireType;

const WIRE_TYPE_NAMES = ['varint', 'i64', 'length-delimited', 'start-group', 'end-group', 'i32'];

export function protobufError(message: string): OtlpDecodeError {
  return new OtlpDecodeError('invalid protobuf: ' + message);
}

/**
 * Known fields of each message, by field number, with the wire type they must
 * have. Consulted only for tags the decoders' switch statements did not match,
 * to tell a wrong wire type (an error) from an unknown field (skipped).
 */
export type FieldTable = { readonly name: string; readonly fields: Record<number, [string, number]> };

export const FIELDS = {
  ExportTraceServiceRequest: {
    name: 'ExportTraceServiceRequest',
    fields: { 1: ['resource_spans', WIRE_LEN] },
  },
  ResourceSpans: {
    name: 'ResourceSpans',
    fields: { 1: ['resource', WIRE_LEN], 2: ['scope_spans', WIRE_LEN], 3: ['schema_url', WIRE_LEN] },
  },
  Resource: {
    name: 'Resource',
    fields: { 1: ['attributes', WIRE_LEN], 2: ['dropped_attributes_count', WIRE_VARINT] },
  },
  ScopeSpans: {
    name: 'ScopeSpans',
    fields: { 1: ['scope', WIRE_LEN], 2: ['spans', WIRE_LEN], 3: ['schema_url', WIRE_LEN] },
  },
  InstrumentationScope: {
    name: 'InstrumentationScope',
    fields: {
      1: ['name', WIRE_LEN],
      2: ['version', WIRE_LEN],
      3: ['attributes', WIRE_LEN],
      4: ['dropped_attributes_count', WIRE_VARINT],
    },
  },
  Span: {
    name: 'Span',
    fields: {
      1: ['trace_id', WIRE_LEN],
      2: ['span_id', WIRE_LEN],
      3: ['trace_state', WIRE_LEN],
      4: ['parent_span_id', WIRE_LEN],
      5: ['name', WIRE_LEN],
      6: ['kind', WIRE_VARINT],
      7: ['start_time_unix_nano', WIRE_I64],
      8: ['end_time_unix_nano', WIRE_I64],
      9: ['attributes', WIRE_LEN],
      10: ['dropped_attributes_count', WIRE_VARINT],
      11: ['events', WIRE_LEN],
      12: ['dropped_events_count', WIRE_VARINT],
      13: ['links', WIRE_LEN],
      14: ['dropped_links_count', WIRE_VARINT],
      15: ['status', WIRE_LEN],
      16: ['flags', WIRE_I32],
    },
  },
  Event: {
    name: 'Span.Event',
    fields: {
      1: ['time_unix_nano', WIRE_I64],
      2: ['name', WIRE_LEN],
      3: ['attributes', WIRE_LEN],
      4: ['dropped_attributes_count', WIRE_VARINT],
    },
  },
  Link: {
    name: 'Span.Link',
    fields: {
      1: ['trace_id', WIRE_LEN],
      2: ['span_id', WIRE_LEN],
      3: ['trace_state', WIRE_LEN],
      4: ['attributes', WIRE_LEN],
      5: ['dropped_attributes_count', WIRE_VARINT],
      6: ['flags', WIRE_I32],
    },
  },
  Status: {
    name: 'Status',
    fields: { 2: ['message', WIRE_LEN], 3: ['code', WIRE_VARINT] },
  },
  KeyValue: {
    name: 'KeyValue',
    fields: { 1: ['key', WIRE_LEN], 2: ['value', WIRE_LEN] },
  },
  AnyValue: {
    name: 'AnyValue',
    fields: {
      1: ['string_value', WIRE_LEN],
      2: ['bool_value', WIRE_VARINT],
      3: ['int_value', WIRE_VARINT],
      4: ['double_value', WIRE_I64],
      5: ['array_value', WIRE_LEN],
      6: ['kvlist_value', WIRE_LEN],
      7: ['bytes_value', WIRE_LEN],
    },
  },
  ArrayValue: { name: 'ArrayValue', fields: { 1: ['values', WIRE_LEN] } },
  ExportLogsServiceRequest: {
    name: 'ExportLogsServiceRequest',
    fields: { 1: ['resource_logs', WIRE_LEN] },
  },
  ResourceLogs: {
    name: 'ResourceLogs',
    fields: { 1: ['resource', WIRE_LEN], 2: ['scope_logs', WIRE_LEN], 3: ['schema_url', WIRE_LEN] },
  },
  ScopeLogs: {
    name: 'ScopeLogs',
    fields: { 1: ['scope', WIRE_LEN], 2: ['log_records', WIRE_LEN], 3: ['schema_url', WIRE_LEN] },
  },
  LogRecord: {
    name: 'LogRecord',
    fields: {
      1: ['time_unix_nano', WIRE_I64],
      2: ['severity_number', WIRE_VARINT],
      3: ['severity_text', WIRE_LEN],
      5: ['body', WIRE_LEN],
      6: ['attributes', WIRE_LEN],
      7: ['dropped_attributes_count', WIRE_VARINT],
      8: ['flags', WIRE_I32],
      9: ['trace_id', WIRE_LEN],
      10: ['span_id', WIRE_LEN],
      11: ['observed_time_unix_nano', WIRE_I64],
      12: ['event_name', WIRE_LEN],
    },
  },
  ExportMetricsServiceRequest: {
    name: 'ExportMetricsServiceRequest',
    fields: { 1: ['resource_metrics', WIRE_LEN] },
  },
  ResourceMetrics: {
    name: 'ResourceMetrics',
    fields: { 1: ['resource', WIRE_LEN], 2: ['scope_metrics', WIRE_LEN], 3: ['schema_url', WIRE_LEN] },
  },
  ScopeMetrics: {
    name: 'ScopeMetrics',
    fields: { 1: ['scope', WIRE_LEN], 2: ['metrics', WIRE_LEN], 3: ['schema_url', WIRE_LEN] },
  },
  Metric: {
    name: 'Metric',
    fields: {
      1: ['name', WIRE_LEN],
      2: ['description', WIRE_LEN],
      3: ['unit', WIRE_LEN],
      5: ['gauge', WIRE_LEN],
      7: ['sum', WIRE_LEN],
      9: ['histogram', WIRE_LEN],
      10: ['exponential_histogram', WIRE_LEN],
      11: ['summary', WIRE_LEN],
      12: ['metadata', WIRE_LEN],
    },
  },
  Gauge: { name: 'Gauge', fields: { 1: ['data_points', WIRE_LEN] } },
  Sum: { name: 'Sum', fields: { 1: ['data_points', WIRE_LEN], 2: ['aggregation_temporality', WIRE_VARINT], 3: ['is_monotonic', WIRE_VARINT] } },
  Histogram: { name: 'Histogram', fields: { 1: ['data_points', WIRE_LEN], 2: ['aggregation_temporality', WIRE_VARINT] } },
  ExponentialHistogram: { name: 'ExponentialHistogram', fields: { 1: ['data_points', WIRE_LEN], 2: ['aggregation_temporality', WIRE_VARINT] } },
  Summary: { name: 'Summary', fields: { 1: ['data_points', WIRE_LEN] } },
  NumberDataPoint: {
    name: 'NumberDataPoint',
    fields: {
      2: ['start_time_unix_nano', WIRE_I64],
      3: ['time_unix_nano', WIRE_I64],
      4: ['as_double', WIRE_I64],
      6: ['as_int', WIRE_I64],
      7: ['attributes', WIRE_LEN],
      8: ['flags', WIRE_VARINT],
    },
  },
  // Repeated scalars arrive packed (length-delimited) or one by one; the decoder takes both.
  HistogramDataPoint: {
    name: 'HistogramDataPoint',
    fields: {
      2: ['start_time_unix_nano', WIRE_I64],
      3: ['time_unix_nano', WIRE_I64],
      4: ['count', WIRE_I64],
      5: ['sum', WIRE_I64],
      6: ['bucket_counts', WIRE_I64],
      7: ['explicit_bounds', WIRE_I64],
      9: ['attributes', WIRE_LEN],
      10: ['flags', WIRE_VARINT],
      11: ['min', WIRE_I64],
      12: ['max', WIRE_I64],
    },
  },
  KeyValueList: { name: 'KeyValueList', fields: { 1: ['values', WIRE_LEN] } },
} as const satisfies Record<string, FieldTable>;

/**
 * Handles a tag no case matched. A known field with the wrong wire type fails
 * (protobufjs' own decoders would skip it and silently drop the value);
 * anything else is skipped by protobufjs, which also rejects field number 0,
 * invalid wire types and unmatched end-group tags.
 */
export function otherField(r: protobuf.Reader, fieldTag: number, table: FieldTable): void {
  const field = fieldTag >>> 3;
  const known = table.fields[field];
  if (known !== undefined) throw wrongWireType(table.name, known[0], fieldTag, known[1]);
  r.skipType(fieldTag & 7, 0, field);
}

/** The error for a known field that arrived with a wire type other than the one its type requires. */
function wrongWireType(message: string, field: string, tag: number, expected: number): OtlpDecodeError {
  const actual = tag & 7;
  return protobufError(
    `${message}.${field} (field ${tag >>> 3}) has wire type ${actual}` +
      ` (${WIRE_TYPE_NAMES[actual] ?? 'invalid'}), expected ${expected} (${WIRE_TYPE_NAMES[expected]})`,
  );
}
