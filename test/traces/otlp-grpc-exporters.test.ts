import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SpanKind, SpanStatusCode, context, trace } from '@opentelemetry/api';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { createApiKey } from '@aos/storage';
import { readJson, type SpanDetail, type TraceDetail } from '../support/api-types.ts';
import { exportOnce, grpcExporter, partialSuccess, rawExportClient } from '../support/grpc.ts';
import { otlpExporter, recordSpans, serializeSpans, tracerProvider } from '../support/otel.ts';
import { eventually, startTestService, type TestService } from '../support/service.ts';

let svc: TestService;
let grpcAddress: string;
beforeAll(async () => {
  svc = await startTestService({}, { grpc: true });
  grpcAddress = svc.grpcAddress!;
});
afterAll(async () => {
  await svc?.stop();
});

async function keyOf(projectId: string): Promise<string> {
  return (await createApiKey(svc.service.storage, { projectId, name: 'exporter', scopes: ['ingest', 'read'] })).secret;
}

async function traceOf(traceId: string, key: string, spanCount: number): Promise<TraceDetail> {
  return eventually(async () => {
    const res = await svc.api(`/api/v1/traces/${traceId}`, { key });
    if (res.status !== 200) return undefined;
    const body = await readJson<TraceDetail>(res);
    return body.spanCount === spanCount ? body : undefined;
  }, 20_000, `trace ${traceId}`);
}

/** A tracer whose spans are kept in memory, to be exported by hand. */
function memoryTracer(resource: Record<string, string>) {
  const memory = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ resource: resourceFromAttributes(resource), spanProcessors: [new SimpleSpanProcessor(memory)] });
  return { tracer: provider.getTracer('agent-test', '1.2.3'), finished: () => memory.getFinishedSpans() };
}

/** An agent run (agent → llm with GenAI attributes and an event → tool that failed), recorded once. */
function recordAgentRun(): ReadableSpan[] {
  const { tracer, finished } = memoryTracer({ 'service.name': 'support-bot', 'deployment.environment.name': 'staging' });
  const start = Date.now() - 5_000;
  const agent = tracer.startSpan('support-agent', {
    kind: SpanKind.SERVER,
    startTime: start,
    attributes: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.conversation.id': 'session-twin', 'user.id': 'user-7', 'input.value': 'Where is my order?' },
  });
  const ctx = trace.setSpan(context.active(), agent);
  const llm = tracer.startSpan(
    'chat gpt-4o',
    {
      kind: SpanKind.CLIENT,
      startTime: start + 100,
      attributes: { 'gen_ai.operation.name': 'chat', 'gen_ai.system': 'openai', 'gen_ai.request.model': 'gpt-4o', 'gen_ai.usage.input_tokens': 1200, 'gen_ai.usage.output_tokens': 300 },
    },
    ctx,
  );
  llm.addEvent('gen_ai.content.completion.chunk', {}, start + 350);
  llm.end(start + 1_100);
  const tool = tracer.startSpan('lookup_order', { startTime: start + 1_200, attributes: { 'openinference.span.kind': 'TOOL', 'tool.name': 'lookup_order' } }, ctx);
  tool.setStatus({ code: SpanStatusCode.ERROR, message: 'order service timed out' });
  tool.end(start + 1_700);
  agent.end(start + 2_000);
  return finished();
}

describe('spans sent by the OpenTelemetry OTLP/gRPC exporter', () => {
  it('come back through the read API exactly as the same spans sent over OTLP/HTTP', async () => {
    const spans = recordAgentRun();
    const traceId = spans[0]!.spanContext().traceId;
    // The same spans into two projects, one per transport: the trace ids collide on purpose.
    const [httpKey, grpcKey] = await Promise.all([keyOf('over-http'), keyOf('over-grpc')]);
    await exportOnce(otlpExporter('proto', svc.url, httpKey), spans);
    await exportOnce(grpcExporter(grpcAddress, grpcKey), spans);

    const [overHttp, overGrpc] = await Promise.all([traceOf(traceId, httpKey, 3), traceOf(traceId, grpcKey, 3)]);
    expect(overGrpc.projectId).toBe('over-grpc');
    expect(overGrpc.name).toBe('support-agent');
    expect(overGrpc.cost).toBeCloseTo((1200 * 2.5 + 300 * 10) / 1e6, 9);
    expect({ ...overGrpc, projectId: 'either' }).toEqual({ ...overHttp, projectId: 'either' });

    for (const span of spans) {
      const path = `/api/v1/traces/${traceId}/spans/${span.spanContext().spanId}`;
      const [a, b] = await Promise.all([svc.api(path, { key: httpKey }), svc.api(path, { key: grpcKey })]);
      const [fromHttp, fromGrpc] = [await readJson<SpanDetail>(a), await readJson<SpanDetail>(b)];
      expect({ ...fromGrpc, projectId: 'either' }).toEqual({ ...fromHttp, projectId: 'either' });
    }
  });

  it('work with gzip compression', async () => {
    const provider = tracerProvider(grpcExporter(grpcAddress, svc.key, 'gzip'), { 'service.name': 'gzip-over-grpc' });
    const span = provider.getTracer('gzip').startSpan('compressed', { attributes: { 'input.value': 'x'.repeat(10_000) } });
    const traceId = span.spanContext().traceId;
    span.end();
    await provider.forceFlush();
    await provider.shutdown();
    const stored = await traceOf(traceId, svc.key, 1);
    expect(stored.serviceName).toBe('gzip-over-grpc');
    expect(stored.input).toBe('x'.repeat(10_000));
  });

  it('is configured through the environment alone: endpoint and headers', async () => {
    const saved = { endpoint: process.env.OTEL_EXPORTER_OTLP_ENDPOINT, headers: process.env.OTEL_EXPORTER_OTLP_HEADERS };
    process.env.OTEL_EXPORTER_OTLP_ENDPOINT = `http://${grpcAddress}`;
    process.env.OTEL_EXPORTER_OTLP_HEADERS = `x-api-key=${svc.key}`;
    try {
      const { OTLPTraceExporter } = await import('@opentelemetry/exporter-trace-otlp-grpc');
      const provider = tracerProvider(new OTLPTraceExporter(), { 'service.name': 'grpc-by-env' });
      const span = provider.getTracer('env').startSpan('configured-by-env');
      const traceId = span.spanContext().traceId;
      span.end();
      await provider.forceFlush();
      await provider.shutdown();
      expect((await traceOf(traceId, svc.key, 1)).serviceName).toBe('grpc-by-env');
    } finally {
      for (const [name, value] of [['OTEL_EXPORTER_OTLP_ENDPOINT', saved.endpoint], ['OTEL_EXPORTER_OTLP_HEADERS', saved.headers]] as const) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    }
  });

  it('answers partialSuccess with the reasons for spans it refuses, and keeps the rest', async () => {
    // Two children without a name: the message decodes, those two spans cannot be stored.
    const { tracer, finished } = memoryTracer({ 'service.name': 'partly-valid' });
    const root = tracer.startSpan('root');
    const ctx = trace.setSpan(context.active(), root);
    tracer.startSpan('', {}, ctx).end();
    tracer.startSpan('', {}, ctx).end();
    root.end();
    const traceId = root.spanContext().traceId;
    const client = rawExportClient(grpcAddress);
    try {
      const outcome = await client.export(serializeSpans(finished(), 'protobuf'), svc.key);
      expect(outcome.code, outcome.details).toBe(0);
      expect(partialSuccess(outcome.response!)).toEqual({ rejectedSpans: 2, errorMessage: expect.stringMatching(/2 with an empty name/) });
      // Full success leaves partial_success unset.
      const whole = await client.export(serializeSpans(recordSpans(2), 'protobuf'), svc.key);
      expect(whole.code).toBe(0);
      expect(partialSuccess(whole.response!)).toBeNull();
    } finally {
      client.close();
    }
    expect((await traceOf(traceId, svc.key, 1)).name).toBe('root');
  });
});
