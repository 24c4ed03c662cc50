import * as grpc from '@grpc/grpc-js';
import { MeterProvider, PeriodicExportingMetricReader, type PushMetricExporter } from '@opentelemetry/sdk-metrics';
import { OTLPMetricExporter as ProtoMetricExporter } from '@opentelemetry/exporter-metrics-otlp-proto';
import { AggregationTemporalityPreference, OTLPMetricExporter as JsonMetricExporter } from '@opentelemetry/exporter-metrics-otlp-http';
import { OTLPMetricExporter as GrpcMetricExporter } from '@opentelemetry/exporter-metrics-otlp-grpc';
import { resourceFromAttributes } from '@opentelemetry/resources';
import type { Meter } from '@opentelemetry/api';

/** A stock OTLP metrics exporter pointed at the service's metrics path, as a user would configure it. */
export function otlpMetricExporter(kind: 'proto' | 'json' | 'grpc', target: string, key: string, temporality: 'cumulative' | 'delta' = 'cumulative'): PushMetricExporter {
  const temporalityPreference = temporality === 'delta' ? AggregationTemporalityPreference.DELTA : AggregationTemporalityPreference.CUMULATIVE;
  if (kind === 'grpc') {
    const metadata = new grpc.Metadata();
    metadata.set('x-api-key', key);
    return new GrpcMetricExporter({ url: `http://${target}`, metadata, temporalityPreference });
  }
  const config = { url: `${target}/api/v1/traces/otlp/v1/metrics`, headers: { 'x-api-key': key }, temporalityPreference };
  return kind === 'proto' ? new ProtoMetricExporter(config) : new JsonMetricExporter(config);
}

/**
 * A meter provider whose reader exports only when flushed (the interval is far longer than
 * any test), so each `flush` is one export of every instrument's current point.
 */
export function meterProvider(exporter: PushMetricExporter, resource: Record<string, string> = { 'service.name': 'metrics-test' }) {
  const reader = new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: 3_600_000 });
  const provider = new MeterProvider({ resource: resourceFromAttributes(resource), readers: [reader] });
  return {
    meter: (name = 'genai-test'): Meter => provider.getMeter(name),
    flush: () => provider.forceFlush(),
    shutdown: () => provider.shutdown(),
  };
}

/** The attributes the GenAI conventions give a gen_ai.client.token.usage point. */
export function tokenUsageAttributes(tokenType: 'input' | 'output', model = 'gpt-4o-mini') {
  return {
    'gen_ai.operation.name': 'chat',
    'gen_ai.provider.name': 'openai',
    'gen_ai.request.model': model,
    'gen_ai.response.model': `${model}-2024-07-18`,
    'gen_ai.token.type': tokenType,
    'server.address': 'api.openai.com',
  };
}
