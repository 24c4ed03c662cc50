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
export { decodeProtobufExport } from './decode-protobuf.ts';
export { decodeJsonExport } from './decode-json.ts';
export { decodeProtobufLogsExport } from './decode-logs-protobuf.ts';
export { decodeJsonLogsExport } from './decode-logs-json.ts';
export { decodeProtobufMetricsExport } from './decode-metrics-protobuf.ts';
export { decodeJsonMetricsExport } from './decode-metrics-json.ts';
export { partitionValidSpans } from './validate.ts';
export { decodeExport, decodeLogsExport, decodeMetricsExport } from './decode.ts';
export { describeCuts, limitSpans, type LimitCuts, type SpanLimits } from './limits.ts';
export { readExport, type ReadExportFailure, type ReadExportOptions, type ReadExportResult } from './read-export.ts';
export { logRecordEventName, partitionSpanLogRecords, type LogRecordPartition, type SpanLogRecord } from './validate-logs.ts';
export { partitionMetricPoints, type MetricPointPartition, type MetricPointRecord } from './validate-metrics.ts';
export { contentTypeFor, encodeExportResponse, encodeLogsExportResponse, encodeMetricsExportResponse, encodeRetryableRpcStatus, encodeRpcStatus } from './encode.ts';
export { grpcMethodPath } from './schema.ts';
