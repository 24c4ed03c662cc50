/**
 * @aos/otlp — decoding of OTLP trace export requests (protobuf and JSON)
 * into one encoding-independent shape, per-span validation, the OTLP response
 * bodies, and the gRPC method paths the .proto files declare.
 */
export type {
  AttributeValue,
  Attributes,
  OtlpEncoding,
  OtlpEvent,
  OtlpLink,
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
export { partitionValidSpans } from './validate.ts';
export { decodeExport } from './decode.ts';
export { describeCuts, limitSpans, type LimitCuts, type SpanLimits } from './limits.ts';
export { readExport, type ReadExportFailure, type ReadExportOptions, type ReadExportResult } from './read-export.ts';
export { contentTypeFor, encodeExportResponse, encodeRetryableRpcStatus, encodeRpcStatus } from './encode.ts';
export { grpcMethodPath } from './schema.ts';

