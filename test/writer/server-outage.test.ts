import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Queue } from 'bullmq';
import type { SpanBatchPayload } from '@aos/queue';
import { startClickHouseEndpoint, type ClickHouseEndpoint } from '../support/clickhouse-http/start.ts';
import { openIngestQueue } from '../support/ingest-queue.ts';
import { eventually, startTestService, type TestService } from '../support/service.ts';
import { sendSpans, storedRows } from '../support/stored-rows.ts';

// The service on a ClickHouse server (the test endpoint: the real engine behind ClickHouse's
// HTTP interface, in a process of its own), which is killed while batches are acknowledged.
const dir = mkdtempSync(path.join(tmpdir(), 'aos-server-outage-'));
let endpoint: ClickHouseEndpoint;
let svc: TestService;
let ingest: ReturnType<typeof openIngestQueue>;
let queue: Queue<SpanBatchPayload>;

beforeAll(async () => {
  endpoint = await startClickHouseEndpoint({ dataDir: path.join(dir, 'clickhouse') });
  // Two attempts: were the outage spent on attempts, every batch would be a dead letter within seconds.
  svc = await startTestService({ CLICKHOUSE_URL: endpoint.url, WRITER_JOB_ATTEMPTS: '2', CLICKHOUSE_REQUEST_TIMEOUT_MS: '2000' });
  ingest = openIngestQueue(svc);
  queue = ingest.queue;
}, 120_000);
afterAll(async () => {
  await ingest?.close();
  await svc?.stop();
  await endpoint?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const inFlight = () => queue.getJobs(['wait', 'delayed', 'prioritized', 'active']);

describe('a ClickHouse server killed during ingest', () => {
  it('keeps acknowledged batches waiting without spending attempts and stores each span once when the server is back, with no one acting', async () => {
    // One export while the server answers: the key is known and cached before the server goes.
    const before = 'e0'.repeat(16);
    expect((await sendSpans(svc, before, 5)).status).toBe(200);
    await eventually(async () => ((await storedRows(svc.service.storage, [before])).rows === 5 ? true : undefined), 60_000, 'the first export stored');

    const port = Number(new URL(endpoint.url).port);
    await endpoint.kill();
    const traces = ['e1', 'e2', 'e3'].map((b) => b.repeat(16));
    for (const traceId of traces) expect((await sendSpans(svc, traceId, 20)).status).toBe(200);
    // (The first export's job may still be finishing its work after the insert, and waits too.)
    await eventually(async () => ((await inFlight()).length >= traces.length ? true : undefined), 30_000, 'the batches queued');
    // Longer than two attempts with backoff would last.
    await new Promise((r) => setTimeout(r, 6000));
    expect((await queue.getJobCounts('failed')).failed).toBe(0);
    for (const job of await inFlight()) expect(job.attemptsMade).toBe(0);

    // The same server back on the same address and data.
    endpoint = await startClickHouseEndpoint({ dataDir: path.join(dir, 'clickhouse'), port });
    await eventually(async () => ((await storedRows(svc.service.storage, traces)).rows === 60 ? true : undefined), 60_000, 'every span stored');
    await eventually(async () => ((await inFlight()).length === 0 ? true : undefined), 30_000, 'the queue drained');
    // Raw rows, no FINAL: a batch stored twice would show here.
    expect(await storedRows(svc.service.storage, [before, ...traces])).toEqual({ rows: 65, distinct: 65 });
    expect((await queue.getJobCounts('failed')).failed).toBe(0);
  });
});
