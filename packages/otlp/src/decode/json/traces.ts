/**
 * Decodes an OTLP/HTTP JSON body (ExportTraceServiceRequest) into
 * OtlpTraceExport.
 *
 * JSON.parse does the tokenizing; a hand-written walker then checks types and
 * builds the output in one pass (a schema library would cost an extra pass and
 * an allocation per checked value). Both the OTLP/JSON camelCase field names
 * and the proto field names (snake_case) are accepted, as proto3 JSON parsers
 * do; unknown fields are ignored.
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
} from '../../types.ts';
import { OtlpDecodeError } from '../../errors.ts';
import { JsonPath } from './path.ts';
import {
  type JsonObject,
  readArray,
  readBool,
  readBytes,
  readDouble,
  readElement,
  readEnum,
  readId,
  readObject,
  readString,
  readUint32,
  readUint64,
} from './fields.ts';
import { parseInt64 } from '../int64.ts';
import { MAX_VALUE_DEPTH, finiteOrName, setAttribute } from '../attribute-value.ts';

const SPAN_KINDS: ReadonlyMap<string, number> = new Map([
  ['SPAN_KIND_UNSPECIFIED', 0],
  ['SPAN_KIND_INTERNAL', 1],
  ['SPAN_KIND_SERVER', 2],
  ['SPAN_KIND_CLIENT', 3],
  ['SPAN_KIND_PRODUCER', 4],
  ['SPAN_KIND_CONSUMER', 5],
]);

const STATUS_CODES: ReadonlyMap<string, number> = new Map([
  ['STATUS_CODE_UNSET', 0],
  ['STATUS_CODE_OK', 1],
  ['STATUS_CODE_ERROR', 2],
]);

/** Parses and decodes a complete OTLP/JSON trace export request. */
export function decodeJsonExport(text: string): OtlpTraceExport {
  return decodeJsonRequest(text, (request, path) => ({
    resourceSpans: mapArray(request.resourceSpans ?? request.resource_spans, path, 'resourceSpans', readResourceSpans),
  }));
}

/** Parses a JSON request and reads its root object; any failure is an OtlpDecodeError naming where. */
export function decodeJsonRequest<T>(text: string, readRequest: (request: JsonObject, path: JsonPath) => T): T {
  let root: unknown;
  try {
    root = JSON.parse(text);
  } catch (err) {
    throw new OtlpDecodeError(`invalid JSON: ${(err as Error).message}`, { cause: err });
  }
  const path = new JsonPath();
  try {
    return readRequest(readElement(root, path), path);
  } catch (err) {
    if (err instanceof OtlpDecodeError) throw err;
    // e.g. a stack overflow: keep the promise that bad input only ever
    // produces OtlpDecodeError.
    const reason = (err as Error)?.message ?? String(err);
    throw new OtlpDecodeError(`invalid OTLP JSON at ${path.format()}: ${reason}`, { cause: err });
  }
}

/** Reads a repeated message field, with `field` and each index on the path. */
export function mapArray<T>(
  value: unknown,
  path: JsonPath,
  field: string,
  readItem: (item: JsonObject, path: JsonPath) => T,
): T[] {
  const items = readArray(value, path, field);
  const result: T[] = new Array<T>(items.length);
  path.push(field);
  for (let i = 0; i < items.length; i++) {
    path.push(i);
    result[i] = readItem(readElement(items[i], path), path);
    path.pop();
  }
  path.pop();
  return result;
}

function readResourceSpans(o: JsonObject, path: JsonPath): OtlpResourceSpans {
  return {
    resource: readResource(o, path),
    scopeSpans: mapArray(o.scopeSpans ?? o.scope_spans, path, 'scopeSpans', readScopeSpans),
  };
}

/** The `resource` of a ResourceSpans or ResourceLogs. */
export function readResource(o: JsonObject, path: JsonPath): { attributes: Attributes } {
  const resource = readObject(o.resource, path, 'resource');
  let attributes: Attributes = {};
  if (resource !== undefined) {
    path.push('resource');
    attributes = readAttributes(resource.attributes, path, 'attributes', 0);
    path.pop();
  }
  return { attributes };
}

function readScopeSpans(o: JsonObject, path: JsonPath): OtlpScopeSpans {
  return { scope: readScope(o, path), spans: mapArray(o.spans, path, 'spans', readSpan) };
}

/** The `scope` of a ScopeSpans or ScopeLogs. */
export function readScope(o: JsonObject, path: JsonPath): { name: string; version: string } {
  const scope = readObject(o.scope, path, 'scope');
  let name = '';
  let version = '';
  if (scope !== undefined) {
    path.push('scope');
    name = readString(scope.name, path, 'name');
    version = readString(scope.version, path, 'version');
    path.pop();
  }
  return { name, version };
}

function readSpan(o: JsonObject, path: JsonPath): OtlpSpan {
  return {
    traceId: readId(o.traceId ?? o.trace_id, path, 'traceId'),
    spanId: readId(o.spanId ?? o.span_id, path, 'spanId'),
    parentSpanId: readId(o.parentSpanId ?? o.parent_span_id, path, 'parentSpanId'),
    traceState: readString(o.traceState ?? o.trace_state, path, 'traceState'),
    name: readString(o.name, path, 'name'),
    kind: readEnum(o.kind, path, 'kind', SPAN_KINDS, 5) as OtlpSpanKind,
    startTimeUnixNano: readUint64(o.startTimeUnixNano ?? o.start_time_unix_nano, path, 'startTimeUnixNano'),
    endTimeUnixNano: readUint64(o.endTimeUnixNano ?? o.end_time_unix_nano, path, 'endTimeUnixNano'),
    attributes: readAttributes(o.attributes, path, 'attributes', 0),
    droppedAttributesCount: readUint32(
      o.droppedAttributesCount ?? o.dropped_attributes_count,
      path,
      'droppedAttributesCount',
    ),
    events: mapArray(o.events, path, 'events', readEvent),
    droppedEventsCount: readUint32(o.droppedEventsCount ?? o.dropped_events_count, path, 'droppedEventsCount'),
    links: mapArray(o.links, path, 'links', readLink),
    status: readStatus(o.status, path),
  };
}

function readEvent(o: JsonObject, path: JsonPath): OtlpEvent {
  return {
    timeUnixNano: readUint64(o.timeUnixNano ?? o.time_unix_nano, path, 'timeUnixNano'),
    name: readString(o.name, path, 'name'),
    attributes: readAttributes(o.attributes, path, 'attributes', 0),
  };
}

function readLink(o: JsonObject, path: JsonPath): OtlpLink {
  return {
    traceId: readId(o.traceId ?? o.trace_id, path, 'traceId'),
    spanId: readId(o.spanId ?? o.span_id, path, 'spanId'),
    traceState: readString(o.traceState ?? o.trace_state, path, 'traceState'),
    attributes: readAttributes(o.attributes, path, 'attributes', 0),
  };
}

function readStatus(value: unknown, path: JsonPath): OtlpSpan['status'] {
  const status = readObject(value, path, 'status');
  if (status === undefined) return { code: 0, message: '' };
  path.push('status');
  const result = {
    code: readEnum(status.code, path, 'code', STATUS_CODES, 2) as OtlpStatusCode,
    message: readString(status.message, path, 'message'),
  };
  path.pop();
  return result;
}

/** A repeated KeyValue field (attributes, kvlist values) as an object; the last duplicate key wins. */
export function readAttributes(value: unknown, path: JsonPath, field: string, depth: number): Attributes {
  const items = readArray(value, path, field);
  const attributes: Attributes = {};
  if (items.length === 0) return attributes;
  path.push(field);
  for (let i = 0; i < items.length; i++) {
    path.push(i);
    const kv = readElement(items[i], path);
    const key = readString(kv.key, path, 'key');
    setAttribute(attributes, key, readAnyValue(kv.value, path, 'value', depth));
    path.pop();
  }
  path.pop();
  return attributes;
}

/** The AnyValue in `field`; absent or empty reads as null. `depth` counts enclosing arrays/kvlists. */
export function readAnyValue(value: unknown, path: JsonPath, field: string, depth: number): AttributeValue {
  if (value == null) return null;
  path.push(field);
  const result = readAnyValueHere(value, path, depth);
  path.pop();
  return result;
}

/** An AnyValue at the current path (a field value or an array element). */
function readAnyValueHere(value: unknown, path: JsonPath, depth: number): AttributeValue {
  if (value == null) return null;
  const v = readElement(value, path);
  // The common case first; a oneof, so the first member present is taken.
  let member = v.stringValue ?? v.string_value;
  if (member != null) return readString(member, path, 'stringValue');
  if ((member = v.intValue ?? v.int_value) != null) {
    return parseInt64(member) ?? path.fail('intValue', 'expected a signed 64-bit integer');
  }
  if ((member = v.boolValue ?? v.bool_value) != null) return readBool(member, path, 'boolValue');
  if ((member = v.doubleValue ?? v.double_value) != null) {
    return finiteOrName(readDouble(member, path, 'doubleValue'));
  }
  if ((member = v.arrayValue ?? v.array_value) != null) {
    const array = readNested(member, path, 'arrayValue', depth);
    path.push('arrayValue');
    const items = readArray(array.values, path, 'values');
    const values: AttributeValue[] = new Array<AttributeValue>(items.length);
    path.push('values');
    for (let i = 0; i < items.length; i++) {
      path.push(i);
      values[i] = readAnyValueHere(items[i], path, depth + 1);
      path.pop();
    }
    path.pop();
    path.pop();
    return values;
  }
  if ((member = v.kvlistValue ?? v.kvlist_value) != null) {
    const kvlist = readNested(member, path, 'kvlistValue', depth);
    path.push('kvlistValue');
    const values = readAttributes(kvlist.values, path, 'values', depth + 1);
    path.pop();
    return values;
  }
  if ((member = v.bytesValue ?? v.bytes_value) != null) return readBytes(member, path, 'bytesValue');
  return null;
}

function readNested(value: unknown, path: JsonPath, field: string, depth: number): JsonObject {
  if (depth >= MAX_VALUE_DEPTH) path.fail(field, `attribute values nested deeper than ${MAX_VALUE_DEPTH} levels`);
  return readObject(value, path, field) ?? {};
}
