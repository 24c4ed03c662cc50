/** Decoding by the encoding a transport announced; strict UTF-8 for JSON. */
import type { OtlpEncoding, OtlpLogsExport, OtlpMetricsExport, OtlpTraceExport } from '../types.ts';
import { OtlpDecodeError } from '../errors.ts';
import { decodeJsonExport } from './json/traces.ts';
import { decodeProtobufExport, type SpanAttributeCap } from './protobuf/traces.ts';
import { decodeJsonLogsExport } from './json/logs.ts';
import { decodeProtobufLogsExport } from './protobuf/logs.ts';
import { decodeJsonMetricsExport } from './json/metrics.ts';
import { decodeProtobufMetricsExport } from './protobuf/metrics.ts';

// Strict: a JSON body that is not valid UTF-8 is rejected, not patched with U+FFFD.
const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Decodes a trace request body in the encoding its Content-Type announced. `cap` bounds the
 * span attributes protobuf decoding materializes (JSON has parsed them all by then anyway).
 */
export function decodeExport(body: Uint8Array, encoding: OtlpEncoding, cap?: SpanAttributeCap): OtlpTraceExport {
  return encoding === 'protobuf' ? decodeProtobufExport(body, cap) : decodeJsonExport(utf8Text(body));
}

/** Decodes a logs request body in the encoding its Content-Type announced. */
export function decodeLogsExport(body: Uint8Array, encoding: OtlpEncoding): OtlpLogsExport {
  return encoding === 'protobuf' ? decodeProtobufLogsExport(body) : decodeJsonLogsExport(utf8Text(body));
}

/** Decodes a metrics request body in the encoding its Content-Type announced. */
export function decodeMetricsExport(body: Uint8Array, encoding: OtlpEncoding): OtlpMetricsExport {
  return encoding === 'protobuf' ? decodeProtobufMetricsExport(body) : decodeJsonMetricsExport(utf8Text(body));
}

function utf8Text(body: Uint8Array): string {
  try {
    return utf8.decode(body);
  } catch (err) {
    throw new OtlpDecodeError('invalid JSON: the body is not valid UTF-8', { cause: err });
  }
}
