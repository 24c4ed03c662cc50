import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { diag, DiagLogLevel, type DiagLogger } from '@opentelemetry/api';
import { BasicTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { OTLPLogExporter } from '@opentelemetry/exporter-logs-otlp-proto';
import { OTLPMetricExporter } from '@opentelemetry/exporter-metrics-otlp-proto';
import { emitLogRecords } from '../support/otel-logs.ts';
import { meterProvider, otlpMetricExporter, tokenUsageAttributes } from '../support/otel-metrics.ts';
import { eventually, jsonCall, startTestService, type TestService } from '../support/service.ts';

// OTLP metrics through the stock SDK's exporters: GenAI points stored and read back through
// GET /trace-metrics, other metrics accepted and counted as refused, never a 404.
let svc: TestService;
beforeAll(async () => {
  svc = await startTestService({}, { grpc: true });
});
afterAll(async () => {
  await svc?.stop();
});

interface MetricSeries {
  metric: string;
  kind: string | null;
  unit: string | null;
  groupBy: string | null;
  series: Array<{ group: string | null; points: Array<{ time: string; count: number; sum: number | null; min: number | null; max: number | null }> }>;
}

/** A metric's series once their totals are `expected` (count and sum per group, summed over buckets). */
async function totalsOnce(query: string, expected: Record<string, { count: number; sum: number }>): Promise<MetricSeries> {
  let last: Record<string, { count: number; sum: number }> = {};
  return eventually(async () => {
    const answer = await jsonCall<MetricSeries>(svc, `/api/v1/trace-metrics?${query}`);
    expect(answer.status, answer.text).toBe(200);
    last = totalsOf(answer.body);
    return JSON.stringify(last) === JSON.stringify(expected) ? answer.body : undefined;
  }, 20_000, `totals ${JSON.stringify(expected)} of ${query}`).catch((err: Error) => {
    throw new Error(`${err.message}; last totals ${JSON.stringify(last)}`);
  });
}

function totalsOf(body: MetricSeries): Record<string, { count: number; sum: number }> {
  return Object.fromEntries(
    body.series
      .map((s) => [s.group ?? '', { count: s.points.reduce((n, p) => n + p.count, 0), sum: s.points.reduce((n, p) => n + (p.sum ?? 0), 0) }] as const)
      .sort(([a], [b]) => a.localeCompare(b)),
  );
}

/** Collects what the OpenTelemetry SDK reports through its diagnostic logger. */
function diagnostics() {
  const seen: { error: string[]; warn: string[] } = { error: [], warn: [] };
  const text = (args: unknown[]) => args.map(String).join(' ');
  const logger: DiagLogger = {
    error: (...args) => void seen.error.push(text(args)),
    warn: (...args) => void seen.warn.push(text(args)),
    info: () => {},
    debug: () => {},
    verbose: () => {},
  };
  diag.setLogger(logger, { logLevel: DiagLogLevel.WARN, suppressOverrideMessage: true });
  return seen;
}

const savedEnv = { ...process.env };
afterEach(() => {
  diag.disable();
  for (const name of ['OTEL_EXPORTER_OTLP_ENDPOINT', 'OTEL_EXPORTER_OTLP_HEADERS']) {
    if (savedEnv[name] === undefined) delete process.env[name];
    else process.env[name] = savedEnv[name];
  }
});

describe('OTLP metrics: the stock SDK exporters', () => {
  it('exports traces, logs and metrics to a base endpoint with no error; its token usage histogram is readable', async () => {
    // The quick-start way: one base endpoint and the key as a header, from the environment.
    process.env.OTEL_EXPORTER_OTLP_ENDPOINT = `${svc.url}/api/v1/traces/otlp`;
    process.env.OTEL_EXPORTER_OTLP_HEADERS = `x-api-key=${svc.key}`;
    const seen = diagnostics();

    const tracer = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(new OTLPTraceExporter())] });
    tracer.getTracer('base-endpoint').startSpan('chat gpt-4o-mini', { attributes: { 'gen_ai.operation.name': 'chat' } }).end();
    await tracer.forceFlush();
    await tracer.shutdown();
    // A plain application log line: accepted, refused as not a GenAI event (a warning, no error).
    await emitLogRecords(new OTLPLogExporter(), [{ body: 'request handled', severityText: 'INFO' }]);
    const metrics = meterProvider(new OTLPMetricExporter(), { 'service.name': 'base-endpoint' });
    const usage = metrics.meter().createHistogram('gen_ai.client.token.usage', { unit: '{token}' });
    usage.record(120, tokenUsageAttributes('input'));
    usage.record(30, tokenUsageAttributes('input'));
    usage.record(45, tokenUsageAttributes('output'));
    // What an HTTP instrumentation would also export: accepted, its points refused with the reason.
    metrics.meter('http').createCounter('http.server.requests').add(1, { 'http.route': '/chat' });
    await metrics.flush();
    await metrics.shutdown();

    expect(seen.error).toEqual([]);
    expect(seen.warn.join('\n')).toMatch(/rejectedDataPoints.*metrics other than the GenAI semantic conventions.*http\.server\.requests/);
    const read = await totalsOnce('metric=gen_ai.client.token.usage&groupBy=tokenType&serviceName=base-endpoint', {
      input: { count: 2, sum: 150 },
      output: { count: 1, sum: 45 },
    });
    expect(read).toMatchObject({ metric: 'gen_ai.client.token.usage', kind: 'histogram', unit: '{token}', groupBy: 'tokenType' });
    expect(read.series.find((s) => s.group === 'input')!.points[0]).toMatchObject({ min: 30, max: 120 });
  });

  it('counts cumulative points once: each export adds only what was recorded since the previous one (protobuf)', async () => {
    const metrics = meterProvider(otlpMetricExporter('proto', svc.url, svc.key), { 'service.name': 'cumulative' });
    const duration = metrics.meter().createHistogram('gen_ai.client.operation.duration', { unit: 's' });
    duration.record(0.5, tokenUsageAttributes('input'));
    await metrics.flush();
    duration.record(1.5, tokenUsageAttributes('input'));
    duration.record(2, tokenUsageAttributes('input'));
    await metrics.flush();
    // A third export with nothing new: the stream's total again, no increase.
    await metrics.flush();
    await metrics.shutdown();
    await totalsOnce('metric=gen_ai.client.operation.duration&serviceName=cumulative', { '': { count: 3, sum: 4 } });
  });

  it('takes delta points from the JSON and gRPC exporters, grouped by model', async () => {
    for (const [kind, target, model] of [['json', svc.url, 'gpt-4o'], ['grpc', svc.grpcAddress!, 'claude-sonnet']] as const) {
      const metrics = meterProvider(otlpMetricExporter(kind, target, svc.key, 'delta'), { 'service.name': 'delta' });
      const ttft = metrics.meter().createHistogram('gen_ai.server.time_to_first_token', { unit: 's' });
      ttft.record(0.25, tokenUsageAttributes('output', model));
      await metrics.flush();
      ttft.record(0.75, tokenUsageAttributes('output', model));
      await metrics.flush();
      await metrics.shutdown();
    }
    await totalsOnce('metric=gen_ai.server.time_to_first_token&groupBy=requestModel', {
      'claude-sonnet': { count: 2, sum: 1 },
      'gpt-4o': { count: 2, sum: 1 },
    });
  });
});

/** A raw OTLP/JSON metrics body with one delta point per metric name given. */
function jsonBody(points: Array<{ name: string; value: number; timeMs: number }>): string {
  return JSON.stringify({
    resourceMetrics: [
      {
        resource: { attributes: [{ key: 'service.name', value: { stringValue: 'raw' } }] },
        scopeMetrics: [
          {
            metrics: points.map((p) => ({
              name: p.name,
              unit: '{token}',
              histogram: {
                aggregationTemporality: 'AGGREGATION_TEMPORALITY_DELTA',
                dataPoints: [
                  {
                    attributes: [{ key: 'gen_ai.token.type', value: { stringValue: 'input' } }],
                    startTimeUnixNano: String((p.timeMs - 1000) * 1e6),
                    timeUnixNano: String(p.timeMs * 1e6),
                    count: '1',
                    sum: p.value,
                    explicitBounds: [10, 100],
                    bucketCounts: ['0', '1', '0'],
                  },
                ],
              },
            })),
          },
        ],
      },
    ],
  });
}

async function postMetrics(body: string, init: { contentType?: string; key?: string | null; method?: string } = {}) {
  const res = await svc.api('/api/v1/traces/otlp/v1/metrics', {
    method: init.method ?? 'POST',
    ...(init.method === 'GET' ? {} : { body }),
    headers: { 'content-type': init.contentType ?? 'application/json' },
    key: init.key === undefined ? svc.key : init.key,
  });
  return { status: res.status, text: await res.text() };
}

describe('OTLP metrics: the receiver', () => {
  it('answers partial success for other metrics and stores a replayed export once', async () => {
    const at = Date.now() - 60_000;
    const body = jsonBody([
      { name: 'gen_ai.client.token.usage', value: 42, timeMs: at },
      { name: 'process.cpu.time', value: 1, timeMs: at },
    ]);
    for (let i = 0; i < 2; i++) {
      const answer = await postMetrics(body);
      expect(answer.status).toBe(200);
      expect(JSON.parse(answer.text)).toEqual({
        partialSuccess: {
          rejectedDataPoints: '1',
          errorMessage: expect.stringMatching(/^rejected 1 of 2 data points: 1 of metrics other than .*"process\.cpu\.time"/),
        },
      });
    }
    await totalsOnce('metric=gen_ai.client.token.usage&serviceName=raw', { '': { count: 1, sum: 42 } });
  });

  it('refuses in OTLP shapes: no key, an undecodable body, another content type, another method', async () => {
    const noKey = await postMetrics(jsonBody([]), { key: null });
    expect(noKey.status).toBe(401);
    expect(JSON.parse(noKey.text)).toMatchObject({ code: 16, message: expect.any(String) });
    const bad = await postMetrics('{"resourceMetrics":[{"scopeMetrics":[{"metrics":[{"histogram":{"dataPoints":[{"count":"many"}]}}]}]}]}');
    expect(bad.status).toBe(400);
    expect(JSON.parse(bad.text)).toMatchObject({ code: 3, message: expect.stringContaining('resourceMetrics[0].scopeMetrics[0].metrics[0].histogram.dataPoints[0].count') });
    const text = await postMetrics('x', { contentType: 'text/plain' });
    expect(text.status).toBe(415);
    const get = await postMetrics('', { method: 'GET' });
    expect(get.status).toBe(405);
  });
});
