/**
 * @aos/otlp — decoding of OTLP trace and logs export requests (protobuf and JSON)
 * into one encoding-independent shape, per-span and per-record validation, the OTLP response
 * bodies, and the gRPC method paths the .proto files declare.
 */
import type { OtlpEncoding, OtlpLogsExport, OtlpTraceExport } from './types.ts';
import { OtlpDecodeError } from './errors.ts';
import { decodeJsonExport } from './decode-json.ts';
import { decodeProtobufExport } from './decode-protobuf.ts';
import { decodeJsonLogsExport } from './decode-logs-json.ts';
import { decodeProtobufLogsExport } from './decode-logs-protobuf.ts';

export type {
  AttributeValue,
  Attributes,
  OtlpEncoding,
  OtlpEvent,
  OtlpLink,
  OtlpLogRecord,
  OtlpLogsExport,
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
export { partitionValidSpans } from './validate.ts';
export { logRecordEventName, partitionSpanLogRecords, type LogRecordPartition, type SpanLogRecord } from './validate-logs.ts';
export { contentTypeFor, encodeExportResponse, encodeLogsExportResponse, encodeRetryableRpcStatus, encodeRpcStatus } from './encode.ts';
export { grpcMethodPath } from './schema.ts';

// Strict: a JSON body that is not valid UTF-8 is rejected, not patched with U+FFFD.
const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Decodes a trace request body in the encoding its Content-Type announced. */
export function decodeExport(body: Uint8Array, encoding: OtlpEncoding): OtlpTraceExport {
  return encoding === 'protobuf' ? decodeProtobufExport(body) : decodeJsonExport(utf8Text(body));
}

/** Decodes a logs request body in the encoding its Content-Type announced. */
export function decodeLogsExport(body: Uint8Array, encoding: OtlpEncoding): OtlpLogsExport {
  return encoding === 'protobuf' ? decodeProtobufLogsExport(body) : decodeJsonLogsExport(utf8Text(body));
}

function utf8Text(body: Uint8Array): string {
  try {
    return utf8.decode(body);
  } catch (err) {
    throw new OtlpDecodeError('invalid JSON: the body is not valid UTF-8', { cause: err });
  }
}
