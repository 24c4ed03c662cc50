/** Decoding by the encoding a transport announced; strict UTF-8 for JSON. */
import type { OtlpEncoding, OtlpTraceExport } from './types.ts';
import { OtlpDecodeError } from './errors.ts';
import { decodeJsonExport } from './decode-json.ts';
import { decodeProtobufExport } from './decode-protobuf.ts';

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
