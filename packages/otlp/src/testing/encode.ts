/** Builders of protobuf request bodies for the decoder tests (test-only). */
import { Buffer } from 'node:buffer';
import protobuf from 'protobufjs';
import { getOtlpSchema } from '../schema.ts';

/** Encodes a request given in protobufjs object form (camelCase fields, bytes as Uint8Array, 64-bit as strings). */
export function encodeRequest(request: object): Uint8Array {
  const { ExportTraceServiceRequest } = getOtlpSchema();
  return ExportTraceServiceRequest.encode(ExportTraceServiceRequest.fromObject(request)).finish();
}

export const hex = (text: string): Uint8Array => Buffer.from(text, 'hex');

/** A request holding one span (merged over a valid default) in one resource and scope. */
export function requestWithSpan(span: object): object {
  return {
    resourceSpans: [
      {
        resource: { attributes: [{ key: 'service.name', value: { stringValue: 'svc' } }] },
        scopeSpans: [
          {
            scope: { name: 'scope', version: '1' },
            spans: [
              {
                traceId: hex('4bf92f3577b34da6a3ce929d0e0e4736'),
                spanId: hex('00f067aa0ba902b7'),
                name: 'span',
                startTimeUnixNano: '1700000000000000000',
                endTimeUnixNano: '1700000000000000001',
                ...span,
              },
            ],
          },
        ],
      },
    ],
  };
}

/** Raw wire-format writing, for bodies a schema-driven encoder cannot produce. */
export function rawMessage(write: (w: protobuf.Writer) => void): Uint8Array {
  const writer = protobuf.Writer.create();
  write(writer);
  return writer.finish();
}

export const fieldTag = (field: number, wireType: number): number => ((field << 3) | wireType) >>> 0;

/** Writes a length-delimited field whose payload is written by `write`. */
export function nested(w: protobuf.Writer, field: number, write: (w: protobuf.Writer) => void): void {
  w.uint32(fieldTag(field, 2)).fork();
  write(w);
  w.ldelim();
}

/** Wraps span payload writing into ExportTraceServiceRequest > ResourceSpans > ScopeSpans > Span. */
export function rawSpanRequest(writeSpan: (w: protobuf.Writer) => void): Uint8Array {
  return rawMessage((w) => nested(w, 1, (w) => nested(w, 2, (w) => nested(w, 2, writeSpan))));
}
