/**
 * Keeps the single-pass protobuf decoder honest against the .proto files:
 * its field tables must match the schema protobufjs loads from ./proto, and on
 * random requests it must agree with protobufjs' own (generic) decoder.
 */
import { Buffer } from 'node:buffer';
import { describe, expect, it } from 'vitest';
import protobuf from 'protobufjs';
import { decodeProtobufExport } from './decode/protobuf/traces.ts';
import { FIELDS } from './decode/protobuf/fields.ts';
import { getOtlpSchema, grpcMethodPath } from './schema.ts';
import { randomBytes, randomInt, randomUint64, seededRandom } from './testing/random.ts';
import type { AttributeValue, Attributes, OtlpTraceExport } from './types.ts';

const FULL_NAMES: Record<keyof typeof FIELDS, string> = {
  ExportTraceServiceRequest: 'opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest',
  ResourceSpans: 'opentelemetry.proto.trace.v1.ResourceSpans',
  Resource: 'opentelemetry.proto.resource.v1.Resource',
  ScopeSpans: 'opentelemetry.proto.trace.v1.ScopeSpans',
  InstrumentationScope: 'opentelemetry.proto.common.v1.InstrumentationScope',
  Span: 'opentelemetry.proto.trace.v1.Span',
  Event: 'opentelemetry.proto.trace.v1.Span.Event',
  Link: 'opentelemetry.proto.trace.v1.Span.Link',
  Status: 'opentelemetry.proto.trace.v1.Status',
  KeyValue: 'opentelemetry.proto.common.v1.KeyValue',
  AnyValue: 'opentelemetry.proto.common.v1.AnyValue',
  ArrayValue: 'opentelemetry.proto.common.v1.ArrayValue',
  KeyValueList: 'opentelemetry.proto.common.v1.KeyValueList',
  ExportLogsServiceRequest: 'opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest',
  ResourceLogs: 'opentelemetry.proto.logs.v1.ResourceLogs',
  ScopeLogs: 'opentelemetry.proto.logs.v1.ScopeLogs',
  LogRecord: 'opentelemetry.proto.logs.v1.LogRecord',
  ExportMetricsServiceRequest: 'opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest',
  ResourceMetrics: 'opentelemetry.proto.metrics.v1.ResourceMetrics',
  ScopeMetrics: 'opentelemetry.proto.metrics.v1.ScopeMetrics',
  Metric: 'opentelemetry.proto.metrics.v1.Metric',
  Gauge: 'opentelemetry.proto.metrics.v1.Gauge',
  Sum: 'opentelemetry.proto.metrics.v1.Sum',
  Histogram: 'opentelemetry.proto.metrics.v1.Histogram',
  ExponentialHistogram: 'opentelemetry.proto.metrics.v1.ExponentialHistogram',
  Summary: 'opentelemetry.proto.metrics.v1.Summary',
  NumberDataPoint: 'opentelemetry.proto.metrics.v1.NumberDataPoint',
  HistogramDataPoint: 'opentelemetry.proto.metrics.v1.HistogramDataPoint',
};

function wireTypeOf(field: protobuf.Field): number {
  if (field.resolvedType instanceof protobuf.Type) return 2;
  if (field.resolvedType instanceof protobuf.Enum) return 0;
  if (field.type === 'string' || field.type === 'bytes') return 2;
  if (['fixed64', 'sfixed64', 'double'].includes(field.type)) return 1;
  if (['fixed32', 'sfixed32', 'float'].includes(field.type)) return 5;
  return 0;
}

const snakeCase = (name: string) => name.replace(/[A-Z]/g, (c) => '_' + c.toLowerCase());

describe('the .proto schema', () => {
  const { root } = getOtlpSchema();

  it('loads lazily into one shared instance', () => {
    expect(getOtlpSchema()).toBe(getOtlpSchema());
    expect(root.lookupType('google.rpc.Status').fields.details!.type).toBe('google.protobuf.Any');
  });

  it('names the gRPC path of the services it declares', () => {
    expect(grpcMethodPath('opentelemetry.proto.collector.trace.v1.TraceService', 'Export')).toBe(
      '/opentelemetry.proto.collector.trace.v1.TraceService/Export',
    );
    expect(() => grpcMethodPath('opentelemetry.proto.collector.trace.v1.TraceService', 'Import')).toThrow(/no method Import/);
    expect(grpcMethodPath('opentelemetry.proto.collector.logs.v1.LogsService', 'Export')).toBe(
      '/opentelemetry.proto.collector.logs.v1.LogsService/Export',
    );
    expect(grpcMethodPath('opentelemetry.proto.collector.metrics.v1.MetricsService', 'Export')).toBe(
      '/opentelemetry.proto.collector.metrics.v1.MetricsService/Export',
    );
    expect(() => grpcMethodPath('opentelemetry.proto.collector.profiles.v1.ProfilesService', 'Export')).toThrow();
  });

  for (const [key, table] of Object.entries(FIELDS)) {
    it(`matches the decoder's field table for ${key}`, () => {
      const type = root.lookupType(FULL_NAMES[key as keyof typeof FIELDS]);
      const fromSchema = Object.fromEntries(
        // protobufjs camel-cases field names; the decoder's tables use the .proto spelling.
        type.fieldsArray.map((field) => [field.id, [snakeCase(field.name), wireTypeOf(field)]]),
      );
      expect(table.fields).toEqual(fromSchema);
    });
  }
});

/** A random request in protobufjs object form, covering every field and value type. */
function randomRequest(random: () => number): object {
  const pick = <T>(items: readonly T[]): T => items[randomInt(random, items.length)]!;
  const id = (length: number) => (random() < 0.1 ? randomBytes(random, randomInt(random, 20)) : randomBytes(random, length));
  const text = () => pick(['', 'a', 'chat gpt-4o', 'héllo ✓ 🚀', 'x'.repeat(200), 'gen_ai.usage.input_tokens', '\u0000nul']);
  const uint64 = () => (randomUint64(random) >> BigInt(randomInt(random, 64))).toString();
  const anyValue = (depth: number): object => {
    switch (randomInt(random, depth > 2 ? 6 : 8)) {
      case 0: return { stringValue: text() };
      case 1: return { boolValue: random() < 0.5 };
      case 2: return { intValue: BigInt.asIntN(64, randomUint64(random) >> BigInt(randomInt(random, 64))).toString() };
      case 3: return { doubleValue: pick([0, -0.5, 1e300, Math.PI, NaN, Infinity, -Infinity]) };
      case 4: return { bytesValue: randomBytes(random, randomInt(random, 10)) };
      case 5: return {};
      case 6: return { arrayValue: { values: Array.from({ length: randomInt(random, 4) }, () => anyValue(depth + 1)) } };
      default: return { kvlistValue: { values: keyValues(depth + 1) } };
    }
  };
  const keyValues = (depth: number) =>
    Array.from({ length: randomInt(random, 5) }, () => ({
      key: pick(['k', 'gen_ai.system', 'a.b', '', 'é', 'k']),
      ...(random() < 0.9 ? { value: anyValue(depth) } : {}),
    }));
  const many = <T>(max: number, make: () => T): T[] => Array.from({ length: randomInt(random, max + 1) }, make);
  return {
    resourceSpans: many(3, () => ({
      ...(random() < 0.8 ? { resource: { attributes: keyValues(0), droppedAttributesCount: randomInt(random, 3) } } : {}),
      schemaUrl: text(),
      scopeSpans: many(3, () => ({
        ...(random() < 0.8 ? { scope: { name: text(), version: text(), attributes: keyValues(0) } } : {}),
        spans: many(5, () => ({
          traceId: id(16),
          spanId: id(8),
          ...(random() < 0.7 ? { parentSpanId: id(8) } : {}),
          traceState: text(),
          flags: randomInt(random, 2 ** 32),
          name: text(),
          kind: randomInt(random, 8),
          startTimeUnixNano: uint64(),
          endTimeUnixNano: uint64(),
          attributes: keyValues(0),
          droppedAttributesCount: randomInt(random, 2 ** 32),
          events: many(2, () => ({ timeUnixNano: uint64(), name: text(), attributes: keyValues(0) })),
          droppedEventsCount: randomInt(random, 10),
          links: many(2, () => ({ traceId: id(16), spanId: id(8), traceState: text(), attributes: keyValues(0), flags: randomInt(random, 4) })),
          droppedLinksCount: randomInt(random, 10),
          ...(random() < 0.7 ? { status: { code: randomInt(random, 4), message: text() } } : {}),
        })),
      })),
    })),
  };
}

// What protobufjs decodes, converted to our shape with straightforward (slow) code.
type Decoded = { [key: string]: any }; // eslint-disable-line @typescript-eslint/no-explicit-any

const hexOf = (base64: string) => Buffer.from(base64, 'base64').toString('hex');

function referenceValue(value: Decoded | undefined): AttributeValue {
  switch (value?.value) {
    case 'stringValue': return value.stringValue;
    case 'boolValue': return value.boolValue;
    case 'intValue': {
      const n = BigInt(value.intValue);
      return n >= -(2n ** 53n - 1n) && n <= 2n ** 53n - 1n ? Number(n) : n.toString();
    }
    case 'doubleValue': return Number.isFinite(value.doubleValue) ? value.doubleValue : String(value.doubleValue);
    case 'bytesValue': return value.bytesValue;
    case 'arrayValue': return (value.arrayValue.values as Decoded[]).map(referenceValue);
    case 'kvlistValue': return referenceAttributes(value.kvlistValue.values);
    default: return null;
  }
}

function referenceAttributes(keyValues: Decoded[]): Attributes {
  const attributes: Attributes = {};
  for (const kv of keyValues) attributes[kv.key] = referenceValue(kv.value);
  return attributes;
}

function referenceDecode(body: Uint8Array): OtlpTraceExport {
  const { ExportTraceServiceRequest } = getOtlpSchema();
  const request = ExportTraceServiceRequest.toObject(ExportTraceServiceRequest.decode(body), {
    longs: String,
    enums: Number,
    bytes: String,
    defaults: true,
    oneofs: true,
  }) as Decoded;
  return {
    resourceSpans: (request.resourceSpans as Decoded[]).map((rs) => ({
      resource: { attributes: referenceAttributes(rs.resource?.attributes ?? []) },
      scopeSpans: (rs.scopeSpans as Decoded[]).map((ss) => ({
        scope: { name: ss.scope?.name ?? '', version: ss.scope?.version ?? '' },
        spans: (ss.spans as Decoded[]).map((s) => ({
          traceId: hexOf(s.traceId),
          spanId: hexOf(s.spanId),
          parentSpanId: hexOf(s.parentSpanId),
          traceState: s.traceState,
          name: s.name,
          kind: s.kind <= 5 ? s.kind : 0,
          startTimeUnixNano: s.startTimeUnixNano,
          endTimeUnixNano: s.endTimeUnixNano,
          attributes: referenceAttributes(s.attributes),
          droppedAttributesCount: s.droppedAttributesCount,
          events: (s.events as Decoded[]).map((e) => ({ timeUnixNano: e.timeUnixNano, name: e.name, attributes: referenceAttributes(e.attributes) })),
          droppedEventsCount: s.droppedEventsCount,
          links: (s.links as Decoded[]).map((l) => ({ traceId: hexOf(l.traceId), spanId: hexOf(l.spanId), traceState: l.traceState, attributes: referenceAttributes(l.attributes) })),
          status: { code: s.status && s.status.code <= 2 ? s.status.code : 0, message: s.status?.message ?? '' },
        })),
      })),
    })),
  };
}

describe('decodeProtobufExport against protobufjs', () => {
  it('agrees on 300 random requests', () => {
    const { ExportTraceServiceRequest } = getOtlpSchema();
    const random = seededRandom(42);
    for (let i = 0; i < 300; i++) {
      const body = ExportTraceServiceRequest.encode(ExportTraceServiceRequest.fromObject(randomRequest(random))).finish();
      expect(decodeProtobufExport(body), `request ${i}`).toEqual(referenceDecode(body));
    }
  });
});
