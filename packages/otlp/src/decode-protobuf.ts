/**
 * Decodes an OTLP/HTTP protobuf body (ExportTraceServiceRequest) straight into
 * OtlpTraceExport.
 *
 * Hand-written against the wire format instead of going through protobufjs
 * message objects: no intermediate messages and no Long objects for the
 * timestamps (about 4x faster than protobufjs decode plus conversion on
 * 1,000-span requests), and known fields sent with the wrong wire type are
 * rejected instead of being silently misread.
 * Field numbers are those of ./proto (schema.test.ts keeps the two in sync).
 *
 * Protobuf merge semantics: a repeated singular scalar field keeps its last
 * value; a repeated singular message field (resource, scope, status) is merged.
 */
import type {
  AttributeValue,
  Attributes,
  OtlpEvent,
  OtlpLink,
  OtlpResourceSpans,
  OtlpScopeSpans,
  OtlpSpan,
  OtlpSpanKind,
  OtlpStatusCode,
  OtlpTraceExport,
} from './types.ts';
import { OtlpDecodeError } from './errors.ts';
import { int64ToValue, uint64ToDecimal } from './int64.ts';
import { WIRE_I32, WIRE_I64, WIRE_LEN, WIRE_VARINT, WireReader, protobufError } from './wire-reader.ts';
import { FIELDS, otherField } from './protobuf-fields.ts';
import { MAX_VALUE_DEPTH, finiteOrName, setAttribute } from './attribute-value.ts';

/** A field tag: field number and wire type, as it appears on the wire. */
const tag = (field: number, wireType: number): number => (field << 3) | wireType;

/** Decodes a complete ExportTraceServiceRequest (or TracesData, which has the same shape). */
export function decodeProtobufExport(body: Uint8Array): OtlpTraceExport {
  try {
    return decodeRequest(new WireReader(body));
  } catch (err) {
    if (err instanceof OtlpDecodeError) throw err;
    // Nothing else is expected; keep the promise that bad bytes only ever
    // produce OtlpDecodeError.
    throw new OtlpDecodeError(`invalid protobuf: ${(err as Error)?.message ?? String(err)}`, {
      cause: err,
    });
  }
}

function decodeRequest(r: WireReader): OtlpTraceExport {
  const resourceSpans: OtlpResourceSpans[] = [];
  while (r.pos < r.limit) {
    const t = r.uint32();
    if (t === tag(1, WIRE_LEN)) {
      const outer = r.enterMessage();
      resourceSpans.push(decodeResourceSpans(r));
      r.leaveMessage(outer);
    } else {
      otherField(r, t, FIELDS.ExportTraceServiceRequest);
    }
  }
  return { resourceSpans };
}

function decodeResourceSpans(r: WireReader): OtlpResourceSpans {
  const group: OtlpResourceSpans = { resource: { attributes: {} }, scopeSpans: [] };
  while (r.pos < r.limit) {
    const t = r.uint32();
    switch (t) {
      case tag(1, WIRE_LEN): {
        const outer = r.enterMessage();
        decodeResourceInto(r, group.resource.attributes);
        r.leaveMessage(outer);
        break;
      }
      case tag(2, WIRE_LEN): {
        const outer = r.enterMessage();
        group.scopeSpans.push(decodeScopeSpans(r));
        r.leaveMessage(outer);
        break;
      }
      case tag(3, WIRE_LEN): // schema_url: not kept
        r.skip(WIRE_LEN);
        break;
      default:
        otherField(r, t, FIELDS.ResourceSpans);
    }
  }
  return group;
}

function decodeResourceInto(r: WireReader, attributes: Attributes): void {
  while (r.pos < r.limit) {
    const t = r.uint32();
    switch (t) {
      case tag(1, WIRE_LEN):
        decodeKeyValueInto(r, attributes, 0);
        break;
      case tag(2, WIRE_VARINT): // dropped_attributes_count: not kept
        r.skip(WIRE_VARINT);
        break;
      default:
        otherField(r, t, FIELDS.Resource);
    }
  }
}

function decodeScopeSpans(r: WireReader): OtlpScopeSpans {
  const group: OtlpScopeSpans = { scope: { name: '', version: '' }, spans: [] };
  while (r.pos < r.limit) {
    const t = r.uint32();
    switch (t) {
      case tag(1, WIRE_LEN): {
        const outer = r.enterMessage();
        decodeScopeInto(r, group.scope);
        r.leaveMessage(outer);
        break;
      }
      case tag(2, WIRE_LEN): {
        const outer = r.enterMessage();
        group.spans.push(decodeSpan(r));
        r.leaveMessage(outer);
        break;
      }
      case tag(3, WIRE_LEN): // schema_url: not kept
        r.skip(WIRE_LEN);
        break;
      default:
        otherField(r, t, FIELDS.ScopeSpans);
    }
  }
  return group;
}

function decodeScopeInto(r: WireReader, scope: OtlpScopeSpans['scope']): void {
  while (r.pos < r.limit) {
    const t = r.uint32();
    switch (t) {
      case tag(1, WIRE_LEN):
        scope.name = r.string();
        break;
      case tag(2, WIRE_LEN):
        scope.version = r.string();
        break;
      case tag(3, WIRE_LEN): // scope attributes: not kept
        r.skip(WIRE_LEN);
        break;
      case tag(4, WIRE_VARINT):
        r.skip(WIRE_VARINT);
        break;
      default:
        otherField(r, t, FIELDS.InstrumentationScope);
    }
  }
}

const MAX_SPAN_KIND = 5;
const MAX_STATUS_CODE = 2;

function decodeSpan(r: WireReader): OtlpSpan {
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
  while (r.pos < r.limit) {
    const t = r.uint32();
    switch (t) {
      case tag(1, WIRE_LEN):
        span.traceId = r.hex();
        break;
      case tag(2, WIRE_LEN):
        span.spanId = r.hex();
        break;
      case tag(3, WIRE_LEN):
        span.traceState = r.string();
        break;
      case tag(4, WIRE_LEN):
        span.parentSpanId = r.hex();
        break;
      case tag(5, WIRE_LEN):
        span.name = r.cachedString();
        break;
      case tag(6, WIRE_VARINT): {
        // Open enum: values from newer senders read as "unspecified".
        const kind = r.uint32();
        span.kind = (kind <= MAX_SPAN_KIND ? kind : 0) as OtlpSpanKind;
        break;
      }
      case tag(7, WIRE_I64):
        r.fixed64();
        span.startTimeUnixNano = uint64ToDecimal(r.lo, r.hi);
        break;
      case tag(8, WIRE_I64):
        r.fixed64();
        span.endTimeUnixNano = uint64ToDecimal(r.lo, r.hi);
        break;
      case tag(9, WIRE_LEN):
        decodeKeyValueInto(r, span.attributes, 0);
        break;
      case tag(10, WIRE_VARINT):
        span.droppedAttributesCount = r.uint32();
        break;
      case tag(11, WIRE_LEN): {
        const outer = r.enterMessage();
        span.events.push(decodeEvent(r));
        r.leaveMessage(outer);
        break;
      }
      case tag(12, WIRE_VARINT):
        span.droppedEventsCount = r.uint32();
        break;
      case tag(13, WIRE_LEN): {
        const outer = r.enterMessage();
        span.links.push(decodeLink(r));
        r.leaveMessage(outer);
        break;
      }
      case tag(14, WIRE_VARINT): // dropped_links_count: not kept
        r.skip(WIRE_VARINT);
        break;
      case tag(15, WIRE_LEN): {
        const outer = r.enterMessage();
        decodeStatusInto(r, span.status);
        r.leaveMessage(outer);
        break;
      }
      case tag(16, WIRE_I32): // flags: not kept
        r.skip(WIRE_I32);
        break;
      default:
        otherField(r, t, FIELDS.Span);
    }
  }
  return span;
}

function decodeEvent(r: WireReader): OtlpEvent {
  const event: OtlpEvent = { timeUnixNano: '0', name: '', attributes: {} };
  while (r.pos < r.limit) {
    const t = r.uint32();
    switch (t) {
      case tag(1, WIRE_I64):
        r.fixed64();
        event.timeUnixNano = uint64ToDecimal(r.lo, r.hi);
        break;
      case tag(2, WIRE_LEN):
        event.name = r.cachedString();
        break;
      case tag(3, WIRE_LEN):
        decodeKeyValueInto(r, event.attributes, 0);
        break;
      case tag(4, WIRE_VARINT):
        r.skip(WIRE_VARINT);
        break;
      default:
        otherField(r, t, FIELDS.Event);
    }
  }
  return event;
}

function decodeLink(r: WireReader): OtlpLink {
  const link: OtlpLink = { traceId: '', spanId: '', traceState: '', attributes: {} };
  while (r.pos < r.limit) {
    const t = r.uint32();
    switch (t) {
      case tag(1, WIRE_LEN):
        link.traceId = r.hex();
        break;
      case tag(2, WIRE_LEN):
        link.spanId = r.hex();
        break;
      case tag(3, WIRE_LEN):
        link.traceState = r.string();
        break;
      case tag(4, WIRE_LEN):
        decodeKeyValueInto(r, link.attributes, 0);
        break;
      case tag(5, WIRE_VARINT):
        r.skip(WIRE_VARINT);
        break;
      case tag(6, WIRE_I32):
        r.skip(WIRE_I32);
        break;
      default:
        otherField(r, t, FIELDS.Link);
    }
  }
  return link;
}

function decodeStatusInto(r: WireReader, status: OtlpSpan['status']): void {
  while (r.pos < r.limit) {
    const t = r.uint32();
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

/** Reads one embedded KeyValue message (the reader is at its length prefix) into attributes. */
function decodeKeyValueInto(r: WireReader, attributes: Attributes, depth: number): void {
  const outer = r.enterMessage();
  let key = '';
  let value: AttributeValue = null;
  while (r.pos < r.limit) {
    const t = r.uint32();
    switch (t) {
      case tag(1, WIRE_LEN):
        key = r.cachedString();
        break;
      case tag(2, WIRE_LEN): {
        const valueOuter = r.enterMessage();
        value = decodeAnyValue(r, depth);
        r.leaveMessage(valueOuter);
        break;
      }
      default:
        otherField(r, t, FIELDS.KeyValue);
    }
  }
  r.leaveMessage(outer);
  setAttribute(attributes, key, value);
}

/** Decodes the AnyValue the reader's limit is set to; depth counts enclosing arrays/kvlists. */
function decodeAnyValue(r: WireReader, depth: number): AttributeValue {
  // A oneof: when a sender sets several members, the last one wins.
  let value: AttributeValue = null;
  while (r.pos < r.limit) {
    const t = r.uint32();
    switch (t) {
      case tag(1, WIRE_LEN):
        value = r.string();
        break;
      case tag(2, WIRE_VARINT):
        r.varint64();
        value = (r.lo | r.hi) !== 0;
        break;
      case tag(3, WIRE_VARINT):
        r.varint64();
        value = int64ToValue(r.lo, r.hi);
        break;
      case tag(4, WIRE_I64):
        value = finiteOrName(r.double());
        break;
      case tag(5, WIRE_LEN): {
        checkDepth(depth);
        const outer = r.enterMessage();
        value = decodeArrayValue(r, depth + 1);
        r.leaveMessage(outer);
        break;
      }
      case tag(6, WIRE_LEN): {
        checkDepth(depth);
        const outer = r.enterMessage();
        value = decodeKeyValueList(r, depth + 1);
        r.leaveMessage(outer);
        break;
      }
      case tag(7, WIRE_LEN):
        value = r.base64();
        break;
      default:
        otherField(r, t, FIELDS.AnyValue);
    }
  }
  return value;
}

function checkDepth(depth: number): void {
  if (depth >= MAX_VALUE_DEPTH) {
    throw protobufError(`attribute values nested deeper than ${MAX_VALUE_DEPTH} levels`);
  }
}

function decodeArrayValue(r: WireReader, depth: number): AttributeValue[] {
  const values: AttributeValue[] = [];
  while (r.pos < r.limit) {
    const t = r.uint32();
    if (t === tag(1, WIRE_LEN)) {
      const outer = r.enterMessage();
      values.push(decodeAnyValue(r, depth));
      r.leaveMessage(outer);
    } else {
      otherField(r, t, FIELDS.ArrayValue);
    }
  }
  return values;
}

function decodeKeyValueList(r: WireReader, depth: number): { [key: string]: AttributeValue } {
  const values: { [key: string]: AttributeValue } = {};
  while (r.pos < r.limit) {
    const t = r.uint32();
    if (t === tag(1, WIRE_LEN)) {
      decodeKeyValueInto(r, values, depth);
    } else {
      otherField(r, t, FIELDS.KeyValueList);
    }
  }
  return values;
}
