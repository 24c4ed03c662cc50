/**
 * Decodes an OTLP/HTTP protobuf body (ExportTraceServiceRequest) straight into
 * OtlpTraceExport, reading the wire format with protobufjs' Reader.
 *
 * Single pass, without protobufjs message objects: on a 1,000-span request
 * Type.decode alone takes ~2.5x as long as this whole decoder, and ~4.5x with
 * the conversion to this shape (intermediate messages and Longs, a Buffer per
 * bytes field). Its generated decoders also silently skip known fields sent
 * with the wrong wire type, which are rejected here. Field numbers are those
 * of ../../proto (../../schema.test.ts checks the field tables against the loaded schema
 * and this decoder against protobufjs' Type.decode).
 *
 * Protobuf merge semantics: a repeated singular scalar field keeps its last
 * value; a repeated singular message field (resource, scope, status) is merged.
 */
import type {
  OtlpEvent,
  OtlpLink,
  OtlpResourceSpans,
  OtlpScopeSpans,
  OtlpSpan,
  OtlpSpanKind,
  OtlpStatusCode,
  OtlpTraceExport,
} from '../../types.ts';
import { OtlpDecodeError } from '../../errors.ts';
import {
  FIELDS,
  WIRE_I32,
  WIRE_I64,
  WIRE_LEN,
  WIRE_VARINT,
  otherField,
  tag,
} from './fields.ts';
import { type Reader, cachedString, createReader, enter, hex, leave, uint64String } from './reader.ts';
import { decodeKeyValueInto, decodeResourceInto, decodeScopeInto } from './common.ts';

/**
 * How many attribute fields of a span are decoded; the rest are skipped unread (a
 * 100,000-attribute span costs what its first `max` do), added to the span's dropped count
 * and noted in `skipped` per span.
 */
export interface SpanAttributeCap {
  max: number;
  skipped: Map<OtlpSpan, number>;
}

/** Decodes a complete ExportTraceServiceRequest (or TracesData, which has the same shape). */
export function decodeProtobufExport(body: Uint8Array, cap: SpanAttributeCap = { max: Infinity, skipped: new Map() }): OtlpTraceExport {
  try {
    return decodeRequest(createReader(body), cap);
  } catch (err) {
    if (err instanceof OtlpDecodeError) throw err;
    // protobufjs reports bad bytes with plain Errors and RangeErrors
    // ("index out of range: 12 + 30 > 40", "invalid wire type 6 at offset 3");
    // keep its message, and the promise that bad bytes only ever produce
    // OtlpDecodeError.
    throw new OtlpDecodeError(`invalid protobuf: ${(err as Error)?.message ?? String(err)}`, {
      cause: err,
    });
  }
}

function decodeRequest(r: Reader, cap: SpanAttributeCap): OtlpTraceExport {
  const resourceSpans: OtlpResourceSpans[] = [];
  while (r.pos < r.len) {
    const t = r.tag();
    if (t === tag(1, WIRE_LEN)) {
      const outer = enter(r);
      resourceSpans.push(decodeResourceSpans(r, cap));
      leave(r, outer);
    } else {
      otherField(r, t, FIELDS.ExportTraceServiceRequest);
    }
  }
  return { resourceSpans };
}

function decodeResourceSpans(r: Reader, cap: SpanAttributeCap): OtlpResourceSpans {
  const group: OtlpResourceSpans = { resource: { attributes: {} }, scopeSpans: [] };
  while (r.pos < r.len) {
    const t = r.tag();
    switch (t) {
      case tag(1, WIRE_LEN): {
        const outer = enter(r);
        decodeResourceInto(r, group.resource.attributes);
        leave(r, outer);
        break;
      }
      case tag(2, WIRE_LEN): {
        const outer = enter(r);
        group.scopeSpans.push(decodeScopeSpans(r, cap));
        leave(r, outer);
        break;
      }
      case tag(3, WIRE_LEN): // schema_url: not kept
        r.skipType(WIRE_LEN);
        break;
      default:
        otherField(r, t, FIELDS.ResourceSpans);
    }
  }
  return group;
}

function decodeScopeSpans(r: Reader, cap: SpanAttributeCap): OtlpScopeSpans {
  const group: OtlpScopeSpans = { scope: { name: '', version: '' }, spans: [] };
  while (r.pos < r.len) {
    const t = r.tag();
    switch (t) {
      case tag(1, WIRE_LEN): {
        const outer = enter(r);
        decodeScopeInto(r, group.scope);
        leave(r, outer);
        break;
      }
      case tag(2, WIRE_LEN): {
        const outer = enter(r);
        group.spans.push(decodeSpan(r, cap));
        leave(r, outer);
        break;
      }
      case tag(3, WIRE_LEN): // schema_url: not kept
        r.skipType(WIRE_LEN);
        break;
      default:
        otherField(r, t, FIELDS.ScopeSpans);
    }
  }
  return group;
}

const MAX_SPAN_KIND = 5;
const MAX_STATUS_CODE = 2;

function decodeSpan(r: Reader, cap: SpanAttributeCap): OtlpSpan {
  let attributeFields = 0;
  let skipped = 0;
  // All properties up front, in one order, so every span shares a hidden class.
  const span: OtlpSpan = {
    traceId: '',
    spanId: '',
    parentSpanId: '',
    traceState: '',
    name: '',
    kind: 0,
    startTimeUnixNano: '0',
    endTimeUnixNano: '0',
    attributes: {},
    droppedAttributesCount: 0,
    events: [],
    droppedEventsCount: 0,
    links: [],
    status: { code: 0, message: '' },
  };
  while (r.pos < r.len) {
    const t = r.tag();
    switch (t) {
      case tag(1, WIRE_LEN):
        span.traceId = hex(r);
        break;
      case tag(2, WIRE_LEN):
        span.spanId = hex(r);
        break;
      case tag(3, WIRE_LEN):
        span.traceState = r.string();
        break;
      case tag(4, WIRE_LEN):
        span.parentSpanId = hex(r);
        break;
      case tag(5, WIRE_LEN):
        span.name = cachedString(r);
        break;
      case tag(6, WIRE_VARINT): {
        // Open enum: values from newer senders read as "unspecified".
        const kind = r.uint32();
        span.kind = (kind <= MAX_SPAN_KIND ? kind : 0) as OtlpSpanKind;
        break;
      }
      case tag(7, WIRE_I64):
        span.startTimeUnixNano = uint64String(r.fixed64());
        break;
      case tag(8, WIRE_I64):
        span.endTimeUnixNano = uint64String(r.fixed64());
        break;
      case tag(9, WIRE_LEN):
        if (attributeFields++ < cap.max) {
          decodeKeyValueInto(r, span.attributes, 0);
        } else {
          r.skipType(WIRE_LEN);
          skipped++;
        }
        break;
      case tag(10, WIRE_VARINT):
        span.droppedAttributesCount = r.uint32();
        break;
      case tag(11, WIRE_LEN): {
        const outer = enter(r);
        span.events.push(decodeEvent(r));
        leave(r, outer);
        break;
      }
      case tag(12, WIRE_VARINT):
        span.droppedEventsCount = r.uint32();
        break;
      case tag(13, WIRE_LEN): {
        const outer = enter(r);
        span.links.push(decodeLink(r));
        leave(r, outer);
        break;
      }
      case tag(14, WIRE_VARINT): // dropped_links_count: not kept
        r.skipType(WIRE_VARINT);
        break;
      case tag(15, WIRE_LEN): {
        const outer = enter(r);
        decodeStatusInto(r, span.status);
        leave(r, outer);
        break;
      }
      case tag(16, WIRE_I32): // flags: not kept
        r.skipType(WIRE_I32);
        break;
      default:
        otherField(r, t, FIELDS.Span);
    }
  }
  if (skipped > 0) {
    span.droppedAttributesCount += skipped;
    cap.skipped.set(span, skipped);
  }
  return span;
}

function decodeEvent(r: Reader): OtlpEvent {
  const event: OtlpEvent = { timeUnixNano: '0', name: '', attributes: {} };
  while (r.pos < r.len) {
    const t = r.tag();
    switch (t) {
      case tag(1, WIRE_I64):
        event.timeUnixNano = uint64String(r.fixed64());
        break;
      case tag(2, WIRE_LEN):
        event.name = cachedString(r);
        break;
      case tag(3, WIRE_LEN):
        decodeKeyValueInto(r, event.attributes, 0);
        break;
      case tag(4, WIRE_VARINT):
        r.skipType(WIRE_VARINT);
        break;
      default:
        otherField(r, t, FIELDS.Event);
    }
  }
  return event;
}

function decodeLink(r: Reader): OtlpLink {
  const link: OtlpLink = { traceId: '', spanId: '', traceState: '', attributes: {} };
  while (r.pos < r.len) {
    const t = r.tag();
    switch (t) {
      case tag(1, WIRE_LEN):
        link.traceId = hex(r);
        break;
      case tag(2, WIRE_LEN):
        link.spanId = hex(r);
        break;
      case tag(3, WIRE_LEN):
        link.traceState = r.string();
        break;
      case tag(4, WIRE_LEN):
        decodeKeyValueInto(r, link.attributes, 0);
        break;
      case tag(5, WIRE_VARINT):
        r.skipType(WIRE_VARINT);
        break;
      case tag(6, WIRE_I32):
        r.skipType(WIRE_I32);
        break;
      default:
        otherField(r, t, FIELDS.Link);
    }
  }
  return link;
}

function decodeStatusInto(r: Reader, status: OtlpSpan['status']): void {
  while (r.pos < r.len) {
    const t = r.tag();
    switch (t) {
      case tag(2, WIRE_LEN):
        status.message = r.string();
        break;
      case tag(3, WIRE_VARINT): {
        const code = r.uint32();
        status.code = (code <= MAX_STATUS_CODE ? code : 0) as OtlpStatusCode;
        break;
      }
      default:
        otherField(r, t, FIELDS.Status);
    }
  }
}
