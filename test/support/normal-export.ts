import { context, trace } from '@opentelemetry/api';
import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace-base';
import { otlpExporter, tracerProvider } from './otel.ts';

/** A stock exporter's traffic while something else runs: what it sent, how each export ended and how long it took. */
export interface NormalExport {
  /** Spans of every export acknowledged as a success, as traceId → spanIds. */
  acked: Map<string, string[]>;
  /** Exports that ended in failure (after the exporter's own retries). */
  failures: number;
  /** Milliseconds from handing a batch to the exporter to its result. */
  ackMs: number[];
  /** Stops making traces, flushes, and resolves once every batch has its result. */
  finish(): Promise<void>;
}

/** Wraps an exporter to time each export and keep the ids of what was acked. */
function timed(inner: SpanExporter, record: (spans: ReadableSpan[], result: ExportResult, ms: number) => void): SpanExporter {
  return {
    export(spans, done) {
      const started = performance.now();
      inner.export(spans, (result) => {
        record(spans, result, performance.now() - started);
        done(result);
      });
    },
    shutdown: () => inner.shutdown(),
    forceFlush: () => inner.forceFlush?.() ?? Promise.resolve(),
  };
}

/** Starts a stock OTLP/HTTP protobuf exporter making a 5-span trace every `everyMs`. */
export function startNormalExport(url: string, key: string, everyMs = 50): NormalExport {
  const acked = new Map<string, string[]>();
  const ackMs: number[] = [];
  let failures = 0;
  const exporter = timed(otlpExporter('proto', url, key), (spans, result, ms) => {
    ackMs.push(ms);
    if (result.code !== ExportResultCode.SUCCESS) {
      failures++;
      return;
    }
    for (const span of spans) {
      const { traceId, spanId } = span.spanContext();
      acked.set(traceId, [...(acked.get(traceId) ?? []), spanId]);
    }
  });
  const provider = tracerProvider(exporter, { 'service.name': 'normal-export' });
  const tracer = provider.getTracer('normal-export');
  const timer = setInterval(() => {
    const root = tracer.startSpan('agent run');
    const inRoot = trace.setSpan(context.active(), root);
    for (let i = 0; i < 4; i++) tracer.startSpan(`step ${i}`, {}, inRoot).end();
    root.end();
  }, everyMs);
  return {
    acked,
    ackMs,
    get failures() {
      return failures;
    },
    async finish() {
      clearInterval(timer);
      await provider.forceFlush();
      await provider.shutdown();
    },
  };
}
