/**
 * Round trip through the real OpenTelemetry JS SDK: spans recorded with
 * sdk-trace-base, serialized by the SDK's own OTLP serializers (protobuf and
 * JSON), decoded by us, and compared with what the SDK recorded.
 */
import { describe, expect, it } from 'vitest';
import { SpanKind, SpanStatusCode, context, trace, type HrTime } from '@opentelemetry/api';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
} from '@opentelemetry/sdk-trace-base';
import { JsonTraceSerializer, ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { decodeExport, decodeJsonExport, decodeProtobufExport } from '../index.ts';
import type { AttributeValue, OtlpSpan, OtlpTraceExport } from '../types.ts';

function nanos(time: HrTime): string {
  return (BigInt(time[0]) * 1_000_000_000n + BigInt(time[1])).toString();
}

/** Records a small agent-like trace: a server span, a client child with events/links/error, a consumer span. */
function recordSpans(): ReadableSpan[] {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': 'agent-api', 'service.version': '1.2.3', 'host.cpus': 8 }),
    spanProcessors: [new SimpleSpanProcessor(exporter)],
  });
  const tracer = provider.getTracer('aos-test', '0.9.0');

  const root = tracer.startSpan('POST /chat', {
    kind: SpanKind.SERVER,
    attributes: {
      'http.method': 'POST',
      'http.status_code': 200,
      'gen_ai.request.temperature': 0.25,
      'llm.streaming': true,
      'tags': ['prod', 'eu'],
      'token.counts': [1, 2, 3],
      'scores': [0.5, 1.5],
      'flags': [true, false],
      'big.int': 2 ** 60,
      'negative.int': -42,
      'empty.string': '',
      'unicode': 'héllo ✓ 🚀',
    },
    startTime: [1_700_000_000, 123_456_789],
  });
  const rootContext = trace.setSpan(context.active(), root);

  const child = tracer.startSpan(
    'chat gpt-4o',
    {
      kind: SpanKind.CLIENT,
      attributes: { 'gen_ai.usage.input_tokens': 1234 },
      links: [{ context: root.spanContext(), attributes: { 'link.reason': 'retry-of', 'attempt': 2 } }],
      startTime: [1_700_000_000, 200_000_001],
    },
    rootContext,
  );
  child.addEvent('gen_ai.content.prompt', { 'gen_ai.prompt': 'Hi!', 'tokens': 3 }, [1_700_000_000, 300_000_000]);
  child.addEvent('no-attributes', [1_700_000_000, 300_000_001]);
  child.setStatus({ code: SpanStatusCode.ERROR, message: 'rate limited' });
  child.end([1_700_000_001, 999_999_999]);

  const consumer = tracer.startSpan('queue receive', { kind: SpanKind.CONSUMER }, rootContext);
  consumer.setStatus({ code: SpanStatusCode.OK });
  consumer.end();

  root.end([1_700_000_002, 5]);
  return exporter.getFinishedSpans();
}

/** What our decoder should produce for an SDK attribute value. */
function expectedValue(value: unknown): AttributeValue {
  if (Array.isArray(value)) return value.map(expectedValue);
  if (typeof value === 'number' && Number.isInteger(value) && !Number.isSafeInteger(value)) {
    return BigInt(value).toString();
  }
  return value as AttributeValue;
}

function expectedAttributes(attributes: Record<string, unknown>): Record<string, AttributeValue> {
  return Object.fromEntries(Object.entries(attributes).map(([k, v]) => [k, expectedValue(v)]));
}

function expectedSpan(span: ReadableSpan): OtlpSpan {
  const context = span.spanContext();
  return {
    traceId: context.traceId,
    spanId: context.spanId,
    parentSpanId: span.parentSpanContext?.spanId ?? '',
    traceState: context.traceState?.serialize() ?? '',
    name: span.name,
    // The API's SpanKind starts at INTERNAL = 0; OTLP reserves 0 for "unspecified".
    kind: (span.kind + 1) as OtlpSpan['kind'],
    startTimeUnixNano: nanos(span.startTime),
    endTimeUnixNano: nanos(span.endTime),
    attributes: expectedAttributes(span.attributes),
    droppedAttributesCount: span.droppedAttributesCount,
    events: span.events.map((event) => ({
      timeUnixNano: nanos(event.time),
      name: event.name,
      attributes: expectedAttributes(event.attributes ?? {}),
    })),
    droppedEventsCount: span.droppedEventsCount,
    links: span.links.map((link) => ({
      traceId: link.context.traceId,
      spanId: link.context.spanId,
      traceState: link.context.traceState?.serialize() ?? '',
      attributes: expectedAttributes(link.attributes ?? {}),
    })),
    status: { code: span.status.code as OtlpSpan['status']['code'], message: span.status.message ?? '' },
  };
}

function allSpans(decoded: OtlpTraceExport): OtlpSpan[] {
  return decoded.resourceSpans.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans));
}

describe('round trip through the OpenTelemetry JS SDK serializers', () => {
  const recorded = recordSpans();
  const encodings = [
    ['protobuf', ProtobufTraceSerializer, decodeProtobufExport],
    ['json', JsonTraceSerializer, (bytes: Uint8Array) => decodeJsonExport(new TextDecoder().decode(bytes))],
  ] as const;

  it('records the spans the tests expect', () => {
    expect(recorded).toHaveLength(3);
    expect(recorded.some((s) => s.status.code === SpanStatusCode.ERROR)).toBe(true);
  });

  for (const [encoding, serializer, decode] of encodings) {
    describe(encoding, () => {
      const body = serializer.serializeRequest(recorded);
      if (body === undefined) throw new Error('serializer produced no body');
      const decoded = decode(body);

      it('keeps resource attributes and the instrumentation scope', () => {
        expect(decoded.resourceSpans).toHaveLength(1);
        const [group] = decoded.resourceSpans;
        expect(group!.resource.attributes).toMatchObject({
          'service.name': 'agent-api',
          'service.version': '1.2.3',
          'host.cpus': 8,
        });
        expect(group!.scopeSpans).toHaveLength(1);
        expect(group!.scopeSpans[0]!.scope).toEqual({ name: 'aos-test', version: '0.9.0' });
      });

      it('decodes every span exactly as recorded', () => {
        const byId = new Map(allSpans(decoded).map((s) => [s.spanId, s]));
        expect(byId.size).toBe(recorded.length);
        for (const span of recorded) {
          expect(byId.get(span.spanContext().spanId)).toEqual(expectedSpan(span));
        }
      });

      it('keeps nanosecond timestamps exact', () => {
        const root = allSpans(decoded).find((s) => s.name === 'POST /chat')!;
        expect(root.startTimeUnixNano).toBe('1700000000123456789');
        expect(root.endTimeUnixNano).toBe('1700000002000000005');
        expect(root.attributes['big.int']).toBe('1152921504606846976');
        const child = allSpans(decoded).find((s) => s.name === 'chat gpt-4o')!;
        expect(child.events[0]!.timeUnixNano).toBe('1700000000300000000');
        expect(child.parentSpanId).toBe(root.spanId);
        expect(child.links[0]).toMatchObject({ traceId: root.traceId, spanId: root.spanId });
        expect(child.status).toEqual({ code: 2, message: 'rate limited' });
        expect(child.kind).toBe(3);
      });

      it('decodes the same through decodeExport', () => {
        expect(decodeExport(body, encoding)).toEqual(decoded);
      });
    });
  }

  it('gives the same result for both encodings', () => {
    const fromProtobuf = decodeProtobufExport(ProtobufTraceSerializer.serializeRequest(recorded)!);
    const fromJson = decodeJsonExport(new TextDecoder().decode(JsonTraceSerializer.serializeRequest(recorded)!));
    expect(fromJson).toEqual(fromProtobuf);
  });
});
