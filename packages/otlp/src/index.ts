/**
 * @aos/otlp — decoding of OTLP trace, logs and metrics export requests (protobuf and JSON)
 * into one encoding-independent shape, per-span and per-record validation, the OTLP response
 * bodies, and the gRPC method paths the .proto files declare.
 */
export type {
  AttributeValue,
  Attributes,
  OtlpEncoding,
  OtlpEvent,
  OtlpLink,
  OtlpLogRecord,
  OtlpLogsExport,
  OtlpMetric,
  OtlpMetricKind,
  OtlpMetricPoint,
  OtlpMetricsExport,
  OtlpResourceMetrics,
  OtlpScopeMetrics,
  OtlpTemporality,
  OtlpResourceLogs,
  OtlpScopeLogs,
  OtlpResourceSpans,
  OtlpScopeSpans,
  OtlpSpan,
  OtlpSpanKind,
  OtlpStatusCode,
  OtlpTraceExport,
} from './types.ts';
export { OtlpDecodeError } from './errors.ts';
export { decodeProtobufExport } from './decode/protobuf/traces.ts';
export { decodeJsonExport } from './decode/json/traces.ts';
export { decodeProtobufLogsExport } from './decode/protobuf/logs.ts';
export { decodeJsonLogsExport } from './decode/json/logs.ts';
export { decodeProtobufMetricsExport } from './decode/protobuf/metrics.ts';
export { decodeJsonMetricsExport } from './decode/json/metrics.ts';
export { partitionValidSpans } from './validate/spans.ts';
export { decodeExport, decodeLogsExport, decodeMetricsExport } from './decode/by-encoding.ts';
export { describeCuts, limitSpans, type LimitCuts, type SpanLimits } from './validate/limits.ts';
export { readExport, type ReadExportFailure, type ReadExportOptions, type ReadExportResult } from './read-export.ts';
export { logRecordEventName, partitionSpanLogRecords, type LogRecordPartition, type SpanLogRecord } from './validate/logs.ts';
export { partitionMetricPoints, type MetricPointPartition, type MetricPointRecord } from './validate/metrics.ts';
export { contentTypeFor, encodeExportResponse, encodeLogsExportResponse, encodeMetricsExportResponse, encodeRetryableRpcStatus, encodeRpcStatus } from './encode.ts';
export { grpcMethodPath } from './schema.ts';
