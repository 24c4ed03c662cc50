import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Job, Queue } from 'bullmq';
import { INGEST_QUEUE, createRedisConnection, parseIngestJobPayload, rowsKeyOf, type IngestJobPayload, type Redis, type SpanRowsKeyPayload, type SpanRowsPayload } from '@aos/queue';
import { loadPriceTable, spanRowsFromExport, type SpanRow } from '@aos/domain';
import { decodeJsonExport } from '@aos/otlp';
import { encodeSpanRows, spanRowBinaryRowCount } from '@aos/storage';
import { readJson, type TraceDetail } from '../support/api-types.ts';
import { parseExposition, sampleValue } from '../support/prometheus.ts';
import { openIngestQueueOf } from '../support/ingest-queue.ts';
import { otlpExporter, recordSpans, serializeSpans, tracerProvider } from '../support/otel.ts';
import { eventually, startTestService, type TestService } from '../support/service.ts';

let svc: TestService;
let ingest: ReturnType<typeof openIngestQueueOf<IngestJobPayload>>;
let queue: Queue<IngestJobPayload>;
let redis: Redis;

beforeAll(async () => {
  svc = await startTestService();
  ingest = openIngestQueueOf<IngestJobPayload>(svc);
  queue = ingest.queue;
  redis = createRedisConnection(svc.env.REDIS_URL!);
});
afterAll(async () => {
  await queue?.resume();
  await redis?.quit();
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
async function waitingJobOf(traceId: string): Promise<Job<SpanRowsKeyPayload>> {
  const job = await eventually(async () => {
    const jobs = await queue.getWaiting();
    return jobs.find((j) => 'traceIds' in j.data && j.data.traceIds.includes(traceId));
  }, 20_000, `the job of trace ${traceId}`);
  return job as Job<SpanRowsKeyPayload>;
}

/** Versions of the trace's spans in the table, before the engine collapses repeats (no FINAL): a second insert of a batch shows here. */
async function storedVersions(traceId: string): Promise<number> {
  const result = await svc.service.storage.client.query({
    query: 'SELECT count() AS n FROM spans WHERE trace_id = {t:String}',
    query_params: { t: traceId },
    format: 'JSONEachRow',
  });
  return Number((await result.json<{ n: string }>())[0]!.n);
}

async function traceStored(traceId: string): Promise<TraceDetail> {
  return eventually(async () => {
    const res = await svc.api(`/api/v1/traces/${traceId}`);
    return res.status === 200 ? readJson<TraceDetail>(res) : undefined;
  });
}

/** One span of this trace as the version before RowBinary turned it into a row (normalized from an OTLP/JSON export). */
function spanRowOf(traceId: string, receivedAtMs: number): SpanRow {
  const start = BigInt(receivedAtMs) * 1_000_000n;
  const exported = {
    resourceSpans: [{
      resource: { attributes: [{ key: 'service.name', value: { stringValue: 'queue-payload-test' } }] },
      scopeSpans: [{ spans: [{ traceId, spanId: '00000000000000aa', name: 'llm call', startTimeUnixNano: String(start), endTimeUnixNano: String(start + 1000n), attributes: [{ key: 'gen_ai.request.model', value: { stringValue: 'gpt-4o' } }] }] }],
    }],
  };
  return spanRowsFromExport(decodeJsonExport(JSON.stringify(exported)), { projectId: 'default', receivedAtMs, prices: loadPriceTable(), maxValueBytes: 262_144 })[0]!;
}

const keyGone = async (key: string) => ((await redis.exists(key)) === 0 ? true : undefined);

describe('the ingest queue', () => {
  it('carries each export as rows in a key of their own, which the writer stores once and then removes', async () => {
    await queue.pause();
    // A small body is turned into rows on the receiving thread; one of 64 KiB or more on a decode thread.
    const small = await exportSpan({ 'gen_ai.request.model': 'gpt-4o' });
    const large = await exportSpan({ 'gen_ai.request.model': 'gpt-4o', note: 'x'.repeat(100_000) });

    const keys: string[] = [];
    for (const traceId of [small, large]) {
      const job = await waitingJobOf(traceId);
      const data = job.data;
      expect(Object.keys(data).sort()).toEqual(['deploymentIds', 'projectId', 'receivedAtMs', 'rowCount', 'rowsFormat', 'rowsKey', 'telemetryScores', 'traceIds']);
      expect(parseIngestJobPayload(data)).toEqual(data);
      expect(data).toMatchObject({ projectId: 'default', rowsFormat: 'RowBinary', rowCount: 1, deploymentIds: [42], traceIds: [traceId], telemetryScores: [] });
      expect(data.rowsKey).toBe(rowsKeyOf(svc.env.QUEUE_PREFIX!, job.id!));
      // No row text in the job's JSON: the span's name, service and model are only in the key.
      expect(JSON.stringify(data)).not.toMatch(/llm call|queue-payload-test|gpt-4o/);
      // The key holds the rows as bytes: the normalized span (its model promoted to a column), not the OTLP export.
      const bytes = (await redis.getBuffer(data.rowsKey))!;
      expect(spanRowBinaryRowCount(bytes)).toBe(1); // RowBinary, whole rows
      const rows = bytes.toString('latin1');
      expect(rows).toContain(traceId);
      expect(rows).toContain('\u0006gpt-4o'); // a RowBinary string: its length, then its bytes
      expect(rows).not.toContain('resourceSpans');
      keys.push(data.rowsKey);
    }

    await queue.resume();
    for (const traceId of [small, large]) {
      expect((await traceStored(traceId)).spanCount).toBe(1);
      expect(await storedVersions(traceId)).toBe(1);
    }
    for (const key of keys) await eventually(() => keyGone(key), 20_000, `${key} removed`);
  });

  it('completes a job marked stored (its rows were stored by an attempt that died before completing it) without storing them again', async () => {
    await queue.pause();
    const traceId = await exportSpan({ 'gen_ai.request.model': 'gpt-4o' });
    const queued = await waitingJobOf(traceId);
    // The same job kept once completed, so that it can run again as BullMQ reruns a job whose worker died before completing it.
    await queued.remove();
    const first = await queue.add('batch', queued.data, { jobId: queued.id!, removeOnComplete: false });
    await queue.resume();
    await eventually(async () => ((await first.isCompleted()) ? true : undefined));
    expect((await queue.getJob(first.id!))!.returnvalue).toEqual({ spans: 1 });
    expect(await redis.exists(queued.data.rowsKey)).toBe(0);

    const firstRun = (await queue.getJob(first.id!))!;
    await firstRun.retry('completed');
    // Done again: a later finish, with its own return value (the job's hash is read after it is in the completed set).
    const result = await eventually(async () => {
      const job = (await queue.getJob(first.id!))!;
      return (await job.isCompleted()) && job.finishedOn! > firstRun.finishedOn! && job.returnvalue !== null ? job.returnvalue : undefined;
    });
    expect(result).toEqual({ spans: 0 });
    expect(await storedVersions(traceId)).toBe(1);
    expect((await traceStored(traceId)).spanCount).toBe(1);
  });

  it('never completes a job whose rows are gone without the mark that they were stored: it is a dead letter with cause rows_missing', async () => {
    await queue.pause();
    const traceId = await exportSpan({ 'gen_ai.request.model': 'gpt-4o' });
    const queued = await waitingJobOf(traceId);
    // Behind the writer's back: an eviction, a FLUSHDB or a cleanup run at the wrong moment.
    await redis.del(queued.data.rowsKey);
    await queue.resume();
    await eventually(async () => ((await (await queue.getJob(queued.id!))?.isFailed()) ? true : undefined));
    const failed = (await queue.getJob(queued.id!))!;
    expect(await failed.isCompleted()).toBe(false);
    expect(failed.failedReason).toMatch(/^rows missing: /);
    const letters = (await readJson<{ data: Array<{ jobId: string; cause: string; spanCount: number }> }>(await svc.api('/api/v1/dead-letters'))).data;
    expect(letters.find((l) => l.jobId === queued.id)).toMatchObject({ cause: 'rows_missing', spanCount: 1 });
    // Counted by the thread that took the job, told to the main thread's registry a moment after.
    const counted = async () => sampleValue(parseExposition(await (await fetch(`${svc.url}/metrics`)).text()), 'aos_queue_dead_letters_total', { queue: INGEST_QUEUE, cause: 'rows_missing' });
    await eventually(async () => ((await counted()) === 1 ? true : undefined), 10_000, 'the dead letter counted by cause').catch(async (err: Error) => {
      throw new Error(`${err.message}: ${await counted()}`);
    });
    expect(await storedVersions(traceId)).toBe(0);
  });

  it('still stores a job of the previous shape, its rows inline in the job (as JSONCompactEachRow)', async () => {
    await queue.pause();
    const traceId = await exportSpan({ 'gen_ai.request.model': 'gpt-4o' });
    const queued = await waitingJobOf(traceId);
    // Taken out of the queue and put back in the shape the version before queued: the same span's row as JSON.
    await queued.remove();
    await redis.del(queued.data.rowsKey);
    const { rowsKey: _key, rowsFormat: _format, ...fields } = queued.data;
    const inline: SpanRowsPayload = { ...fields, rows: encodeSpanRows([spanRowOf(traceId, fields.receivedAtMs)]) };
    await queue.add('batch', inline);
    await queue.resume();

    const detail = await traceStored(traceId);
    expect(detail.spanCount).toBe(1);
    expect(detail.spans[0]?.model).toBe('gpt-4o');
    expect(await storedVersions(traceId)).toBe(1);
  });

  it('refuses the export (503) and leaves no rows behind when the job cannot be added after its rows were written', async () => {
    await queue.pause();
    const prefix = svc.env.QUEUE_PREFIX!;
    const rowsKeys = async () => (await redis.keys(rowsKeyOf(prefix, '*'))).sort();
    const before = await rowsKeys();
    // Rows are written (a plain SET), then BullMQ's add script fails on the queue's own list.
    const wait = `${prefix}:span-batches:wait`;
    const waiting = await redis.dump(wait);
    await redis.set(wait, 'not a list');
    try {
      const refused = await svc.api('/api/v1/traces/otlp', {
        method: 'POST',
        body: serializeSpans(recordSpans(2), 'json') as Uint8Array<ArrayBuffer>,
        headers: { 'content-type': 'application/json' },
      });
      expect(refused.status).toBe(503);
      expect(await refused.json()).toEqual({ code: 14, message: 'the ingest queue is unavailable; retry later' });
      expect(await rowsKeys()).toEqual(before);
    } finally {
      await redis.del(wait);
      if (waiting) await redis.restore(wait, 0, waiting);
      await queue.resume();
    }
  });
});
