/**
 * The messages every signal's request is built from (../../proto/opentelemetry/proto/common
 * and resource): Resource, InstrumentationScope, KeyValue and AnyValue with its arrays and
 * key-value lists. The trace, logs and metrics decoders read them through these functions,
 * so an attribute decodes the same in a span, a log record or a data point.
 */
import type { AttributeValue, Attributes, OtlpScopeSpans } from '../../types.ts';
import { FIELDS, WIRE_I64, WIRE_LEN, WIRE_VARINT, otherField, protobufError, tag } from './fields.ts';
import { type Reader, base64, cachedString, enter, int64Value, leave } from './reader.ts';
import { MAX_VALUE_DEPTH, finiteOrName, setAttribute } from '../attribute-value.ts';

export function decodeResourceInto(r: Reader, attributes: Attributes): void {
  while (r.pos < r.len) {
    const t = r.tag();
    switch (t) {
      case tag(1, WIRE_LEN):
        decodeKeyValueInto(r, attributes, 0);
        break;
      case tag(2, WIRE_VARINT): // dropped_attributes_count: not kept
        r.skipType(WIRE_VARINT);
        break;
      default:
        otherField(r, t, FIELDS.Resource);
    }
  }
}

export function decodeScopeInto(r: Reader, scope: OtlpScopeSpans['scope']): void {
  while (r.pos < r.len) {
    const t = r.tag();
    switch (t) {
      case tag(1, WIRE_LEN):
        scope.name = r.string();
        break;
      case tag(2, WIRE_LEN):
        scope.version = r.string();
        break;
      case tag(3, WIRE_LEN): // scope attributes: not kept
        r.skipType(WIRE_LEN);
        break;
      case tag(4, WIRE_VARINT):
        r.skipType(WIRE_VARINT);
        break;
      default:
        otherField(r, t, FIELDS.InstrumentationScope);
    }
  }
}

/** Reads one embedded KeyValue message (the reader is at its length prefix) into attributes. */
export function decodeKeyValueInto(r: Reader, attributes: Attributes, depth: number): void {
  const outer = enter(r);
  let key = '';
  let value: AttributeValue = null;
  while (r.pos < r.len) {
    const t = r.tag();
    switch (t) {
      case tag(1, WIRE_LEN):
        key = cachedString(r);
        break;
      case tag(2, WIRE_LEN): {
        const valueOuter = enter(r);
        value = decodeAnyValue(r, depth);
        leave(r, valueOuter);
        break;
      }
      default:
        otherField(r, t, FIELDS.KeyValue);
    }
  }
  leave(r, outer);
  setAttribute(attributes, key, value);
}

/** Decodes the AnyValue the reader is narrowed to (also a log record's body); depth counts enclosing arrays/kvlists. */
export function decodeAnyValue(r: Reader, depth: number): AttributeValue {
  // A oneof: when a sender sets several members, the last one wins.
  let value: AttributeValue = null;
  while (r.pos < r.len) {
    const t = r.tag();
    switch (t) {
      case tag(1, WIRE_LEN):
        value = r.string();
        break;
      case tag(2, WIRE_VARINT):
        value = r.bool();
        break;
      case tag(3, WIRE_VARINT):
        value = int64Value(r.int64());
        break;
      case tag(4, WIRE_I64):
        value = finiteOrName(r.double());
        break;
      case tag(5, WIRE_LEN): {
        checkDepth(depth);
        const outer = enter(r);
        value = decodeArrayValue(r, depth + 1);
        leave(r, outer);
        break;
      }
      case tag(6, WIRE_LEN): {
        checkDepth(depth);
        const outer = enter(r);
        value = decodeKeyValueList(r, depth + 1);
        leave(r, outer);
        break;
      }
      case tag(7, WIRE_LEN):
        value = base64(r);
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

function decodeArrayValue(r: Reader, depth: number): AttributeValue[] {
  const values: AttributeValue[] = [];
  while (r.pos < r.len) {
    const t = r.tag();
    if (t === tag(1, WIRE_LEN)) {
      const outer = enter(r);
      values.push(decodeAnyValue(r, depth));
      leave(r, outer);
    } else {
      otherField(r, t, FIELDS.ArrayValue);
    }
  }
  return values;
}

function decodeKeyValueList(r: Reader, depth: number): { [key: string]: AttributeValue } {
  const values: { [key: string]: AttributeValue } = {};
  while (r.pos < r.len) {
    const t = r.tag();
    if (t === tag(1, WIRE_LEN)) {
      decodeKeyValueInto(r, values, depth);
    } else {
      otherField(r, t, FIELDS.KeyValueList);
    }
  }
  return values;
}
