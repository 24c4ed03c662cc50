import { randomUUID } from 'node:crypto';
import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createRedisConnection, INGEST_QUEUE, readWriterPace, recordStoredSpans, type IngestJobPayload, type Redis } from '@aos/queue';
import { PACE_FLOOR_JOBS } from '../../apps/ingest/src/writer-pace-pressure.ts';
import { openIngestQueueOf } from '../support/ingest-queue.ts';
import { eventually, startTestService, type TestService } from '../support/service.ts';
import { sendSpans, storedRows } from '../support/stored-rows.ts';
import { setImmutable, spansFolderOf } from '../support/unwritable-spans.ts';
import { watchRedisCommands } from '../support/redis-monitor.ts';
import { exportBackpressure } from '../../apps/ingest/src/pipeline/export-deps.ts';
import type { IngestSettings } from '@aos/config';

const SPANS_PER_EXPORT = 5;

describe("the writers' pace in Redis", () => {
  const prefix = `test-${randomUUID()}`;
  let writerA: Redis;
  let writerB: Redis;
  let ingest: ReturnType<typeof openIngestQueueOf<IngestJobPayload>>;
  beforeAll(() => {
    // Two writer processes' connections and an ingest's queue, on one Redis under one prefix.
    writerA = createRedisConnection(inject('redisUrl'));
    writerB = createRedisConnection(inject('redisUrl'));
    ingest = openIngestQueueOf<IngestJobPayload>({ env: { REDIS_URL: inject('redisUrl'), QUEUE_PREFIX: prefix } });
  });
  afterAll(async () => {
    await ingest?.close();
    await writerA?.quit();
    await writerB?.quit();
  });

  it('sums what every writer process stored in the window, seconds counted on Redis\'s clock', async () => {
    expect(await readWriterPace(ingest.queue, 10)).toEqual({ rows: 0, jobs: 0, seconds: 0 });
    await recordStoredSpans(writerA, prefix, 1000, 2);
    await recordStoredSpans(writerB, prefix, 500, 1);
    const pace = await readWriterPace(ingest.queue, 10);
    expect({ rows: pace.rows, jobs: pace.jobs }).toEqual({ rows: 1500, jobs: 3 });
    // Both counted this second (or the one before, had a second turned between them).
    expect(pace.seconds).toBeGreaterThanOrEqual(1);
    expect(pace.seconds).toBeLessThanOrEqual(2);
    const [now] = await writerA.time();
    const ttl = await writerA.ttl(`${prefix}:${INGEST_QUEUE}:stored:${now}`);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(60);
  });

  it('leaves out seconds before the window, and takes the pace from the first second with a commit', async () => {
    const [nowText] = await writerA.time();
    const now = Number(nowText);
    const key = (second: number) => `${prefix}-window:${INGEST_QUEUE}:stored:${second}`;
    await writerA.hset(key(now - 12), 'rows', 9999, 'jobs', 99);
    await writerA.hset(key(now - 5), 'rows', 400, 'jobs', 4);
    const queue = new Queue<IngestJobPayload>(INGEST_QUEUE, { connection: writerB, prefix: `${prefix}-window` });
    const pace = await readWriterPace(queue, 10);
    expect({ rows: pace.rows, jobs: pace.jobs }).toEqual({ rows: 400, jobs: 4 });
    // From now - 5 to now, this second whole (7 should the clock have turned meanwhile).
    expect([6, 7]).toContain(pace.seconds);
    await queue.close();
    await writerA.del(key(now - 12), key(now - 5));
  });
});

describe("ingest's limits on the span queue", () => {
  const prefix = `test-${randomUUID()}`;
  let ingest: ReturnType<typeof openIngestQueueOf<IngestJobPayload>>;
  let marking: Redis;
  beforeAll(() => {
    ingest = openIngestQueueOf<IngestJobPayload>({ env: { REDIS_URL: inject('redisUrl'), QUEUE_PREFIX: prefix } });
    marking = createRedisConnection(inject('redisUrl'));
  });
  afterAll(async () => {
    await ingest?.close();
    await marking?.quit();
  });

  /** How often this test's queue was measured while `run` ran, as [job counts read, pace reads]. */
  async function commandsDuring(run: () => Promise<unknown>): Promise<[number, number]> {
    const monitor = await watchRedisCommands();
    try {
      await run();
      // MONITOR's lines come after the replies: wait for a marker sent last.
      const marker = randomUUID();
      await marking.echo(marker);
      await eventually(async () => (monitor.commands.some((c) => c.includes(marker)) ? true : undefined));
    } finally {
      monitor.stop();
    }
    // Commands sent for this queue (a script's own commands show as `[0 lua]` lines).
    const sent = monitor.commands.filter((c) => c.includes(`"${prefix}:`) && !c.includes(' lua] '));
    // BullMQ's count script takes the queue's key prefix (`<prefix>:<queue>:`) as its key.
    return [sent.filter((c) => c.includes(`"${prefix}:${INGEST_QUEUE}:"`)).length, sent.filter((c) => c.includes(':stored')).length];
  }

  it('the depth limit and the pace limit read one measurement of the queue, and the pace only when it has a bound', async () => {
    const settings = { maxQueueDepth: 1000 } as IngestSettings;
    const paced = exportBackpressure({ queue: ingest.queue, settings }, 10);
    // Five exports at once and one just after: one measurement within the window for all, holding both limits' counts.
    const [counts, paceReads] = await commandsDuring(async () => {
      expect(await Promise.all([1, 2, 3, 4, 5].map(() => paced.overloaded()))).toEqual(Array(5).fill(undefined));
      expect(await paced.overloaded()).toBeUndefined();
    });
    expect(paceReads).toBe(1);
    expect(counts).toBe(1);
    const unpaced = exportBackpressure({ queue: ingest.queue, settings }, 0);
    expect(await commandsDuring(() => unpaced.overloaded())).toEqual([1, 0]);
  });
});

describe('ingest held to the writers\' pace', () => {
  let svc: TestService;
  let ingest: ReturnType<typeof openIngestQueueOf<IngestJobPayload>>;
  let spansFolder: string;

  beforeAll(async () => {
    svc = await startTestService({ INGEST_MAX_QUEUE_SECONDS: '2', INGEST_RETRY_AFTER_SECONDS: '3' });
    ingest = openIngestQueueOf<IngestJobPayload>(svc);
    spansFolder = await spansFolderOf(svc.service.storage);
  });
  afterAll(async () => {
    if (spansFolder) setImmutable(spansFolder, false);
    await ingest?.close();
    await svc?.stop();
  });

  it('the writer counts the span rows and jobs of each insert it committed', async () => {
    const traces = ['a1', 'a2', 'a3'].map((b) => b.repeat(16));
    for (const traceId of traces) expect((await sendSpans(svc, traceId, SPANS_PER_EXPORT)).status).toBe(200);
    await eventually(async () => ((await storedRows(svc.service.storage, traces)).rows === traces.length * SPANS_PER_EXPORT ? true : undefined));
    // Counted right after the insert, not awaited by it.
    const pace = await eventually(async () => {
      const read = await readWriterPace(ingest.queue, 10);
      return read.jobs === traces.length ? read : undefined;
    });
    expect(pace.rows).toBe(traces.length * SPANS_PER_EXPORT);
  });

  it('answers 503 with Retry-After once storage stops writing and the backlog passes the floor, and 200 again once the writer caught up, losing no acked span', async () => {
    const acked: string[] = [];
    let refused: Response | undefined;
    setImmutable(spansFolder, true);
    try {
      for (let i = 0; i < 200 && !refused; i++) {
        const traceId = randomUUID().replaceAll('-', '');
        const res = await sendSpans(svc, traceId, SPANS_PER_EXPORT);
        if (res.status === 200) acked.push(traceId);
        else refused = res;
        // The backlog is measured at most every 250 ms.
        await new Promise((r) => setTimeout(r, 25));
      }
      expect(refused?.status).toBe(503);
      expect(refused?.headers.get('retry-after')).toBe('3');
      // The pace's refusal, not the depth limit's (500 batches).
      expect(await refused!.text()).toMatch(/the writers stored nothing|of what the writers store/);
      expect(acked.length).toBeGreaterThanOrEqual(PACE_FLOOR_JOBS);
      expect(acked.length).toBeLessThan(100);
      // Still refused while nothing is stored.
      await new Promise((r) => setTimeout(r, 500));
      expect((await sendSpans(svc, 'f0'.repeat(16), SPANS_PER_EXPORT)).status).toBe(503);
    } finally {
      setImmutable(spansFolder, false);
    }

    // The writer's paused queue tries again on its own; once it has stored the backlog, exports are taken again.
    await eventually(async () => ((await storedRows(svc.service.storage, acked)).rows === acked.length * SPANS_PER_EXPORT ? true : undefined), 60_000, 'every acked span stored');
    const late = 'b7'.repeat(16);
    await eventually(async () => ((await sendSpans(svc, late, SPANS_PER_EXPORT)).status === 200 ? true : undefined), 20_000, 'an export taken again');
    await eventually(async () => ((await storedRows(svc.service.storage, [late])).rows === SPANS_PER_EXPORT ? true : undefined));
    // Raw rows, no FINAL: each acked span stored once.
    expect(await storedRows(svc.service.storage, acked)).toEqual({ rows: acked.length * SPANS_PER_EXPORT, distinct: acked.length * SPANS_PER_EXPORT });
    expect((await ingest.queue.getJobCounts('failed')).failed).toBe(0);
  });
});
