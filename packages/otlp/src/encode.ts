/**
 * OTLP response bodies, in the encoding of the request: an
 * ExportTraceServiceResponse on success (with partial_success when spans were
 * rejected), a google.rpc.Status on failure (OTLP/HTTP's body, OTLP/gRPC's
 * grpc-status-details-bin trailer).
 */
import type { OtlpEncoding } from './types.ts';
import type protobuf from 'protobufjs';
import { getOtlpSchema } from './schema.ts';

const utf8 = new TextEncoder();

export function contentTypeFor(encoding: OtlpEncoding): 'application/x-protobuf' | 'application/json' {
  return encoding === 'protobuf' ? 'application/x-protobuf' : 'application/json';
}

/**
 * The trace receiver's success response. partial_success is set only when something was
 * rejected or there is a warning to pass on (rejected 0 with a message), as the spec
 * asks; otherwise the body is the empty message.
 */
export function encodeExportResponse(
  encoding: OtlpEncoding,
  partial?: { rejectedSpans: number; errorMessage: string },
): Uint8Array {
  const { ExportTraceServiceResponse } = getOtlpSchema();
  return encodeResponse(encoding, ExportTraceServiceResponse, 'rejectedSpans', partial?.rejectedSpans ?? 0, partial?.errorMessage ?? '');
}

/** The logs receiver's success response (ExportLogsServiceResponse), by the same rules. */
export function encodeLogsExportResponse(
  encoding: OtlpEncoding,
  partial?: { rejectedLogRecords: number; errorMessage: string },
): Uint8Array {
  const { ExportLogsServiceResponse } = getOtlpSchema();
  return encodeResponse(encoding, ExportLogsServiceResponse, 'rejectedLogRecords', partial?.rejectedLogRecords ?? 0, partial?.errorMessage ?? '');
}

/** The metrics receiver's success response (ExportMetricsServiceResponse), by the same rules. */
export function encodeMetricsExportResponse(
  encoding: OtlpEncoding,
  partial?: { rejectedDataPoints: number; errorMessage: string },
): Uint8Array {
  const { ExportMetricsServiceResponse } = getOtlpSchema();
  return encodeResponse(encoding, ExportMetricsServiceResponse, 'rejectedDataPoints', partial?.rejectedDataPoints ?? 0, partial?.errorMessage ?? '');
}

function encodeResponse(encoding: OtlpEncoding, type: protobuf.Type, countField: string, rejected: number, errorMessage: string): Uint8Array {
  const hasPartial = rejected > 0 || errorMessage !== '';
  if (encoding === 'json') {
    if (!hasPartial) return utf8.encode('{}');
    // proto3 JSON writes int64 as a string.
    return utf8.encode(JSON.stringify({ partialSuccess: { [countField]: String(rejected), errorMessage } }));
  }
  if (!hasPartial) return new Uint8Array(0);
  return type.encode(type.fromObject({ partialSuccess: { [countField]: rejected, errorMessage } })).finish();
}

/** A google.rpc.Status error body; `code` is a google.rpc.Code (e.g. 3 INVALID_ARGUMENT). */
export function encodeRpcStatus(encoding: OtlpEncoding, code: number, message: string): Uint8Array {
  if (encoding === 'json') return utf8.encode(JSON.stringify({ code, message }));
  const { RpcStatus } = getOtlpSchema();
  return RpcStatus.encode(RpcStatus.fromObject({ code, message })).finish();
}

/** The type URL of a google.rpc.RetryInfo packed in a google.protobuf.Any. */
const RETRY_INFO_TYPE_URL = 'type.googleapis.com/google.rpc.RetryInfo';

/**
 * A google.rpc.Status (protobuf) carrying a google.rpc.RetryInfo: how OTLP/gRPC tells an
 * exporter that it may send the same request again after `retryDelaySeconds`. Without
 * it, OTLP exporters treat RESOURCE_EXHAUSTED as final.
 */
export function encodeRetryableRpcStatus(code: number, message: string, retryDelaySeconds: number): Uint8Array {
  const { RpcStatus } = getOtlpSchema();
  // An Any in its proto3 JSON form: protobufjs packs the named message into it.
  const retryInfo = { '@type': RETRY_INFO_TYPE_URL, retryDelay: { seconds: retryDelaySeconds } };
  return RpcStatus.encode(RpcStatus.fromObject({ code, message, details: [retryInfo] })).finish();
}
