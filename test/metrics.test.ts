import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVALUATION_QUEUE, INGEST_QUEUE, MAINTENANCE_QUEUE, MONITOR_QUEUE, WEBHOOK_QUEUE } from '@aos/queue';
import { otlpExporter, tracerProvider } from './support/otel.ts';
import { parseExposition, sampleValue, type Sample } from './support/prometheus.ts';
import { eventually, startTestService, type TestService } from './support/service.ts';

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService();
});
afterAll(async () => {
  await svc?.stop();
});

async function scrape(): Promise<Sample[]> {
  const res = await fetch(`${svc.url}/metrics`);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return parseExposition(await res.text());
}

/** Sends `count` spans of one trace through the SDK's protobuf exporter and waits until they are stored. */
async function sendSpans(count: number): Promise<string> {
  const provider = tracerProvider(otlpExporter('proto', svc.url, svc.key), { 'service.name': 'metrics-test' });
  const tracer = provider.getTracer('metrics-test');
  const root = tracer.startSpan('root');
  const traceId = root.spanContext().traceId;
  for (let i = 1; i < count; i++) tracer.startSpan(`child-${i}`).end();
  root.end();
  await provider.forceFlush();
  await provider.shutdown();
  return traceId;
}

describe('GET /metrics', () => {
  it('takes no key and shows the counters of an ingest moving', async () => {
    const before = await scrape();
    const acceptedBefore = sampleValue(before, 'aos_ingest_accepted_items_total', { signal: 'traces' }) ?? 0;
    const rowsBefore = sampleValue(before, 'aos_storage_inserted_rows_total', { table: 'spans' }) ?? 0;

    // Spans outside a trace's parent context each start a trace of their own: five traces, five spans.
    await sendSpans(5);
    await eventually(async () => ((sampleValue(await scrape(), 'aos_storage_inserted_rows_total', { table: 'spans' }) ?? 0) >= rowsBefore + 5 ? true : undefined));
    // A job is completed just after its rows are stored.
    await eventually(async () => (sampleValue(await scrape(), 'aos_queue_jobs_total', { queue: INGEST_QUEUE, outcome: 'completed' }) ? true : undefined));

    const after = await scrape();
    expect(sampleValue(after, 'aos_ingest_accepted_items_total', { signal: 'traces' })).toBe(acceptedBefore + 5);
    expect(sampleValue(after, 'aos_storage_inserted_rows_total', { table: 'spans' })).toBe(rowsBefore + 5);
    expect(sampleValue(after, 'aos_storage_inserted_bytes_total', { table: 'spans' })).toBeGreaterThan(0);
    expect(sampleValue(after, 'aos_storage_insert_duration_seconds_count', { table: 'spans' })).toBeGreaterThanOrEqual(1);
    expect(sampleValue(after, 'aos_ingest_body_bytes_count', { signal: 'traces' })).toBeGreaterThanOrEqual(1);
    expect(sampleValue(after, 'aos_writer_lag_seconds_count')).toBeGreaterThanOrEqual(1);
    // The request histogram is labelled by route pattern and status.
    expect(sampleValue(after, 'aos_http_request_duration_seconds_count', { method: 'POST', route: '/api/v1/traces/otlp', status: '200' })).toBeGreaterThanOrEqual(1);
    // Dependencies are probed at scrape time.
    expect(sampleValue(after, 'aos_dependency_up', { dependency: 'storage' })).toBe(1);
    expect(sampleValue(after, 'aos_dependency_up', { dependency: 'redis' })).toBe(1);
    expect(sampleValue(after, 'aos_dependency_up', { dependency: 'migrations' })).toBe(1);
    // Every queue's depth is read from Redis; nothing is left waiting once the spans are stored.
    for (const queue of [INGEST_QUEUE, EVALUATION_QUEUE, MAINTENANCE_QUEUE, MONITOR_QUEUE, WEBHOOK_QUEUE]) {
      expect(after.some((s) => s.name === 'aos_queue_jobs' && s.labels.queue === queue)).toBe(true);
    }
    expect(sampleValue(after, 'aos_queue_oldest_waiting_age_seconds', { queue: INGEST_QUEUE })).toBe(0);
    expect(sampleValue(after, 'aos_queue_jobs', { queue: INGEST_QUEUE, state: 'waiting' })).toBe(0);
  });

  it('labels requests by route pattern, never by URL, and refusals by reason', async () => {
    const traceId = 'ab'.repeat(16);
    expect((await svc.api(`/api/v1/traces/${traceId}`)).status).toBe(404);
    expect((await svc.api('/no/such/path')).status).toBe(404);
    const refused = await svc.api('/api/v1/traces/otlp', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}', key: 'wrong' });
    expect(refused.status).toBe(401);

    const samples = await scrape();
    const routes = new Set(samples.filter((s) => s.name === 'aos_http_request_duration_seconds_count').map((s) => s.labels.route));
    expect(routes).toContain('/api/v1/traces/:traceId');
    expect(routes).toContain('unmatched');
    expect([...routes].some((r) => r?.includes(traceId) || r?.includes('/no/such'))).toBe(false);
    expect(sampleValue(samples, 'aos_ingest_refused_exports_total', { signal: 'traces', reason: 'unauthenticated' })).toBe(1);
  });
});
