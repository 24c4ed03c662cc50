/** Decoding by the encoding a transport announced; strict UTF-8 for JSON. */
import type { OtlpEncoding, OtlpTraceExport } from './types.ts';
import { OtlpDecodeError } from './errors.ts';
import { decodeJsonExport } from './decode-json.ts';
import { decodeProtobufExport, type SpanAttributeCap } from './decode-protobuf.ts';

// Strict: a JSON body that is not valid UTF-8 is rejected, not patched with U+FFFD.
const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Decodes a request body in the encoding its Content-Type announced. `cap` bounds the span
 * attributes protobuf decoding materializes (JSON has parsed them all by then anyway).
 */
export function decodeExport(body: Uint8Array, encoding: OtlpEncoding, cap?: SpanAttributeCap): OtlpTraceExport {
  if (encoding === 'protobuf') return decodeProtobufExport(body, cap);
  let text: string;
  try {
    text = utf8.decode(body);
  } catch (err) {
    throw new OtlpDecodeError('invalid JSON: the body is not valid UTF-8', { cause: err });
  }
  return decodeJsonExport(text);
}
