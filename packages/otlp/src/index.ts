/**
 * @aos/otlp — decoding of OTLP trace export requests (protobuf and JSON)
 * into one encoding-independent shape, per-span validation, the OTLP response
 * bodies, and the gRPC method paths the .proto files declare.
 */
import type { OtlpEncoding, OtlpTraceExport } from './types.ts';
import { OtlpDecodeError } from './errors.ts';
import { decodeJsonExport } from './decode-json.ts';
import { decodeProtobufExport } from './decode-protobuf.ts';

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
export { contentTypeFor, encodeExportResponse, encodeRetryableRpcStatus, encodeRpcStatus } from './encode.ts';
export { grpcMethodPath } from './schema.ts';

// Strict: a JSON body that is not valid UTF-8 is rejected, not patched with U+FFFD.
const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Decodes a request body in the encoding its Content-Type announced. */
export function decodeExport(body: Uint8Array, encoding: OtlpEncoding): OtlpTraceExport {
  if (encoding === 'protobuf') return decodeProtobufExport(body);
  let text: string;
  try {
    text = utf8.decode(body);
  } catch (err) {
    throw new OtlpDecodeError('invalid JSON: the body is not valid UTF-8', { cause: err });
  }
  return decodeJsonExport(text);
}
