import { BasicTracerProvider, BatchSpanProcessor, type SpanExporter } from '@opentelemetry/sdk-trace-base';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { OTLPTraceExporter as ProtoExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { OTLPTraceExporter as JsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { context, trace, type Attributes } from '@opentelemetry/api';

/** A stock OTLP exporter pointed at the service, as a user would configure it. */
export function otlpExporter(kind: 'proto' | 'json', url: string, key: string): SpanExporter {
  const config = { url: `${url}/api/v1/traces/otlp`, headers: { 'x-api-key': key } };
  return kind === 'proto' ? new ProtoExporter(config) : new JsonExporter(config);
}

/** A tracer provider exporting through `exporter`, with the given resource attributes. */
export function tracerProvider(exporter: SpanExporter, resource: Attributes) {
  return new BasicTracerProvider({
    resource: resourceFromAttributes(resource),
    spanProcessors: [new BatchSpanProcessor(exporter, { scheduledDelayMillis: 50 })],
  });
}

import { InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { JsonTraceSerializer, ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';

/** Records `count` spans of one trace with the SDK and returns them as ReadableSpans. */
export function recordSpans(count: number, attributes: Attributes = {}): ReadableSpan[] {
  const memory = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': 'serializer-test' }),
    spanProcessors: [new SimpleSpanProcessor(memory)],
  });
  const tracer = provider.getTracer('serializer-test');
  const root = tracer.startSpan('root', { attributes });
  const ctx = trace.setSpan(context.active(), root);
  for (let i = 1; i < count; i++) tracer.startSpan(`child-${i}`, { attributes }, ctx).end();
  root.end();
  return memory.getFinishedSpans();
}

/** The OTLP request body the stock exporters would send for these spans. */
export function serializeSpans(spans: ReadableSpan[], encoding: 'protobuf' | 'json'): Uint8Array {
  const body = (encoding === 'protobuf' ? ProtobufTraceSerializer : JsonTraceSerializer).serializeRequest(spans);
  if (!body) throw new Error('serializer returned nothing');
  return body;
}
