import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { Queue } from 'bullmq';
import { createRedisConnection, INGEST_QUEUE } from '@aos/queue';
import { openStorage, storageSettingsForTest } from '../support/storage.ts';
import { devKey, startChildService, type ChildService } from '../support/child-service.ts';
import { eventually } from '../support/service.ts';

const dataDir = mkdtempSync(path.join(tmpdir(), 'aos-crash-'));
const prefix = `crash-${randomUUID()}`;
const baseEnv = {
  DATA_DIR: dataDir,
  REDIS_URL: inject('redisUrl'),
  QUEUE_PREFIX: prefix,
  HOST: '127.0.0.1',
  PORT: '0',
  LOG_LEVEL: 'error',
};
const children: ChildService[] = [];
const connection = createRedisConnection(inject('redisUrl'));
const queue = new Queue(INGEST_QUEUE, { connection, prefix });

afterAll(async () => {
  for (const child of children) await child.kill().catch(() => {});
  await queue.close();
  await connection.quit();
  rmSync(dataDir, { recursive: true, force: true });
});

function batch(traceId: string, spans: number) {
  const now = BigInt(Date.now()) * 1_000_000n;
  return {
    resourceSpans: [
      {
        resource: { attributes: [{ key: 'service.name', value: { stringValue: 'crash-test' } }] },
        scopeSpans: [
          {
            scope: { name: 'crash' },
            spans: Array.from({ length: spans }, (_, i) => ({
              traceId,
              spanId: (i + 1).toString(16).padStart(16, '0'),
              parentSpanId: i === 0 ? '' : '0000000000000001',
              name: `step-${i}`,
              startTimeUnixNano: String(now + BigInt(i) * 1000n),
              endTimeUnixNano: String(now + BigInt(i) * 1000n + 500n),
            })),
          },
        ],
      },
    ],
  };
}

describe('a writer killed between dequeue and insert', () => {
  it('loses nothing and stores every span once after restart', async () => {
    // First life: the writer takes jobs but holds them (a huge batch window), then dies.
    const first = await startChildService({
      ...baseEnv,
      WRITER_BATCH_MAX_WAIT_MS: '600000',
      WRITER_BATCH_MAX_ROWS: '1000000',
      WRITER_CONCURRENCY: '100',
      WRITER_LOCK_DURATION_MS: '2000',
    });
    children.push(first);
    const key = devKey(dataDir);
    const traces = Array.from({ length: 3 }, () => randomUUID().replaceAll('-', ''));
    for (const traceId of traces) {
      const res = await fetch(`${first.url}/api/v1/traces/otlp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': key },
        body: JSON.stringify(batch(traceId, 40)),
      });
      expect(res.status).toBe(200);
    }
    // Acked means enqueued; wait until the writer has taken all three jobs.
    await eventually(async () => ((await queue.getJobCounts('active')).active === 3 ? true : undefined));
    await first.kill();

    // Second life on the same data: the stalled jobs are taken over and written.
    const second = await startChildService({ ...baseEnv, WRITER_LOCK_DURATION_MS: '2000' });
    children.push(second);
    for (const traceId of traces) {
      const trace = await eventually(async () => {
        const res = await fetch(`${second.url}/api/v1/traces/${traceId}`, { headers: { 'x-api-key': key } });
        return res.status === 200 ? ((await res.json()) as any) : undefined;
      }, 45_000, `trace ${traceId}`);
      expect(trace.spanCount).toBe(40);
    }
    await eventually(async () => {
      const counts = await queue.getJobCounts('active', 'wait', 'failed', 'completed');
      return (counts.active ?? 0) + (counts.wait ?? 0) === 0 ? counts : undefined;
    });
    expect((await queue.getJobCounts('failed')).failed).toBe(0);
    await second.stop();

    // With the service stopped the test can open the data itself: no raw duplicates either.
    const storage = await openStorage(storageSettingsForTest(dataDir));
    try {
      const rows = await (
        await storage.client.query({
          query: 'SELECT trace_id, count() AS n FROM spans WHERE trace_id IN {ids:Array(String)} GROUP BY trace_id',
          query_params: { ids: traces },
          format: 'JSONEachRow',
        })
      ).json<{ trace_id: string; n: string }>();
      expect(rows.map((r) => Number(r.n))).toEqual([40, 40, 40]);
    } finally {
      await storage.close();
    }
  });
});
