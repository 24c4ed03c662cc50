import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Queue } from 'bullmq';
import { parseIngestJobPayload, type SpanRowsPayload } from '@aos/queue';
import { readJson, type TraceDetail } from '../support/api-types.ts';
import { openIngestQueueOf } from '../support/ingest-queue.ts';
import { otlpExporter, tracerProvider } from '../support/otel.ts';
import { eventually, startTestService, type TestService } from '../support/service.ts';

let svc: TestService;
let ingest: ReturnType<typeof openIngestQueueOf<SpanRowsPayload>>;
let queue: Queue<SpanRowsPayload>;

beforeAll(async () => {
  svc = await startTestService();
  ingest = openIngestQueueOf<SpanRowsPayload>(svc);
  queue = ingest.queue;
});
afterAll(async () => {
  await queue?.resume();
  await ingest?.close();
  await svc?.stop();
});

/** Exports one span through the stock proto exporter and answers its trace id. */
async function exportSpan(attributes: Record<string, string>): Promise<string> {
  const provider = tracerProvider(otlpExporter('proto', svc.url, svc.key), { 'service.name': 'queue-payload-test', 'deployment.id': '42' });
  const span = provider.getTracer('queue-payload-test').startSpan('llm call', { attributes });
  span.end();
  await provider.forceFlush();
  await provider.shutdown();
  return span.spanContext().traceId;
}

/** The one waiting job of a trace (the writer is paused, so it stays there). */
async function waitingJobOf(traceId: string): Promise<SpanRowsPayload> {
  return eventually(async () => {
    const jobs = await queue.getWaiting();
    return jobs.find((job) => job.data.traceIds?.includes(traceId))?.data;
  }, 20_000, `the job of trace ${traceId}`);
}

async function storedRows(traceId: string): Promise<number> {
  const result = await svc.service.storage.client.query({
    query: 'SELECT count() AS n FROM spans FINAL WHERE trace_id = {t:String}',
    query_params: { t: traceId },
    format: 'JSONEachRow',
  });
  return Number((await result.json<{ n: string }>())[0]!.n);
}

describe('the ingest queue', () => {
  it('carries each export as ready-to-insert rows, and the writer stores each span once', async () => {
    await queue.pause();
    // A small body is turned into rows on the receiving thread; one of 64 KiB or more on a decode thread.
    const small = await exportSpan({ 'gen_ai.request.model': 'gpt-4o' });
    const large = await exportSpan({ 'gen_ai.request.model': 'gpt-4o', note: 'x'.repeat(100_000) });

    for (const traceId of [small, large]) {
      const data = await waitingJobOf(traceId);
      expect(Object.keys(data).sort()).toEqual(['deploymentIds', 'projectId', 'receivedAtMs', 'rowCount', 'rows', 'telemetryScores', 'traceIds']);
      expect(parseIngestJobPayload(data)).toEqual(data);
      expect(data).toMatchObject({ projectId: 'default', rowCount: 1, deploymentIds: [42], traceIds: [traceId], telemetryScores: [] });
      // The rows hold the normalized span (its model promoted to a column), not the OTLP export.
      expect(data.rows).toContain(traceId);
      expect(data.rows).toContain('"gpt-4o"');
      expect(data.rows).not.toContain('resourceSpans');
    }

    await queue.resume();
    for (const traceId of [small, large]) {
      const detail = await eventually(async () => {
        const res = await svc.api(`/api/v1/traces/${traceId}`);
        return res.status === 200 ? readJson<TraceDetail>(res) : undefined;
      });
      expect(detail.spanCount).toBe(1);
      expect(await storedRows(traceId)).toBe(1);
    }
  });
});
