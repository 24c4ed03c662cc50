import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Queue } from 'bullmq';
import { loadPriceTable, spanRowsFromExport } from '@aos/domain';
import type { Logger } from '@aos/log';
import { decodeJsonExport } from '@aos/otlp';
import { INGEST_QUEUE, addSpanRowsJob, createRedisConnection, rowsKeyOf, type IngestJobPayload, type Redis, type SpanRowsKeyPayload } from '@aos/queue';
import { encodeSpanRows } from '@aos/storage';
import { encodeSpanBatch } from '@aos/storage/span-batch';
import { agentTraces, traceHex } from '../support/agent-traces.ts';
import { eventually, startTestService, type TestService } from '../support/service.ts';

// The window between the engine committing an insert and the writer marking its jobs stored
// in Redis (docs/reliability.md, SIGKILL): Redis is put back in the state a crash there leaves,
// and the jobs run again through the real writer, on the real engine.

let svc: TestService;
let redis: Redis;
let queue: Queue<IngestJobPayload>;
let prefix: string;
/** The service's warnings: a block sent again says so. */
const warnings: string[] = [];
const logger: Logger = { debug() {}, info() {}, warn: (msg) => void warnings.push(msg), error() {}, child: () => logger };
const SENT_AGAIN = 'span insert block sent again';

beforeAll(async () => {
  // A block window long enough for jobs queued together to share one insert.
  svc = await startTestService({ WRITER_BATCH_MAX_WAIT_MS: '300' }, { logger });
  prefix = svc.env.QUEUE_PREFIX!;
  redis = createRedisConnection(svc.env.REDIS_URL!);
  // Completed jobs are kept, so the test reads what the writer recorded on them.
  queue = new Queue<IngestJobPayload>(INGEST_QUEUE, { connection: redis, prefix, defaultJobOptions: { attempts: 3, removeOnComplete: false } });
  // No merge may collapse a duplicate before it is counted: raw count() is what is promised.
  await svc.service.storage.client.command({ query: 'SYSTEM STOP MERGES spans' });
});
afterAll(async () => {
  await queue?.close();
  await redis?.quit();
  await svc?.stop();
});

interface QueuedRows {
  data: Omit<SpanRowsKeyPayload, 'rowsKey'>;
  rows: Buffer;
}

/**
 * One export's rows as ingest queues them: `traces` agent traces of 3 spans, starting in
 * `month` of 2026 (its partition); `asJson`, as the version before RowBinary queued them
 * (JSONCompactEachRow under the rows key, no rowsFormat).
 */
function exportRows(seed: number, traces: number, month: number, asJson = false): QueuedRows {
  const start = Date.UTC(2026, month - 1, 10, 12) * 1e6;
  const json = agentTraces(
    Array.from({ length: traces }, (_, i) => ({
      traceId: traceHex(seed * 1000 + i),
      startNs: start + i * 1e9,
      input: `question ${seed}-${i}`,
      output: `answer ${seed}-${i}`,
      children: [{ name: 'chat gpt-4o', attrs: { 'gen_ai.request.model': 'gpt-4o' } }, { name: 'execute_tool search' }],
    })),
  );
  const receivedAtMs = Date.UTC(2026, 10, 27) + seed;
  const context = { projectId: 'default', receivedAtMs, prices: loadPriceTable(), maxValueBytes: 262_144 };
  const batch = encodeSpanBatch(decodeJsonExport(JSON.stringify(json)), context);
  const data = { projectId: 'default', receivedAtMs, rowCount: batch.rows, deploymentIds: batch.deploymentIds, traceIds: batch.traceIds, telemetryScores: batch.telemetryScores };
  if (asJson) return { data, rows: Buffer.from(encodeSpanRows(spanRowsFromExport(decodeJsonExport(JSON.stringify(json)), context))) };
  return { data: { ...data, rowsFormat: batch.format }, rows: Buffer.from(batch.chunk) };
}

/** Queues exports at once (the queue paused meanwhile, so the writer takes them together); resolves with their job ids once all completed. */
async function runJobs(add: () => Promise<string[]>): Promise<string[]> {
  await queue.pause();
  const ids = await add();
  await queue.resume();
  await eventually(async () => {
    const states = await Promise.all(ids.map((id) => queue.getJobState(id)));
    expect(states.filter((s) => s === 'failed')).toEqual([]);
    return states.every((s) => s === 'completed') ? true : undefined;
  }, 30_000, 'the jobs completing');
  return ids;
}

const rawSpanCount = async (traceIds: readonly string[]) =>
  Number(
    (
      await (
        await svc.service.storage.client.query({
          query: 'SELECT count() AS n FROM spans WHERE trace_id IN {ids:Array(String)}',
          query_params: { ids: traceIds },
          format: 'JSONEachRow',
        })
      ).json<{ n: string }>()
    )[0]!.n,
  );

const jobKey = (id: string) => `${prefix}:${INGEST_QUEUE}:${id}`;

/** Stores the exports as new jobs; their ids, and the block recorded on each. */
async function storeAll(exports = exportsOf): Promise<{ ids: string[]; blocks: string[] }> {
  const ids = await runJobs(() => Promise.all(exports.map((e) => addSpanRowsJob(queue, e.data, e.rows))));
  const blocks = await Promise.all(ids.map(async (id) => (await redis.hget(jobKey(id), 'aosInsertBlock'))!));
  return { ids, blocks };
}

/** Queues the jobs again as a crash after their insert leaves them: rows keys and blocks back, no mark (but on the jobs `marked`, whose rows are gone). */
async function requeueAsCrashed(ids: readonly string[], blocks: readonly string[], marked: ReadonlySet<number>, exports = exportsOf): Promise<string[]> {
  for (const [i, id] of ids.entries()) {
    await (await queue.getJob(id))!.remove();
    if (!marked.has(i)) await redis.set(rowsKeyOf(prefix, id), exports[i]!.rows);
    await queue.add('batch', { ...exports[i]!.data, rowsKey: rowsKeyOf(prefix, id) }, { jobId: id });
    await redis.hset(jobKey(id), 'aosInsertBlock', blocks[i]!, ...(marked.has(i) ? ['aosRowsStored', Date.now()] : []));
  }
  return [...ids];
}

const exportsOf = [exportRows(1, 4, 1), exportRows(2, 3, 2), exportRows(3, 5, 3)];
const traceIds = exportsOf.flatMap((e) => e.data.traceIds);
const spans = exportsOf.reduce((n, e) => n + e.data.rowCount, 0);

describe('a block the engine committed and Redis never marked', () => {
  it('is sent again as it was, and the engine stores none of it twice', async () => {
    const { ids, blocks } = await storeAll();
    expect(await rawSpanCount(traceIds)).toBe(spans);
    // Each job names the block its rows went in, itself among them.
    ids.forEach((id, i) => expect(blocks[i]!.split(',')).toContain(id));

    // The crash: the same jobs, rows keys and blocks, and no stored mark.
    const sentBefore = warnings.filter((w) => w.startsWith(SENT_AGAIN)).length;
    await runJobs(() => requeueAsCrashed(ids, blocks, new Set()));
    expect(await rawSpanCount(traceIds)).toBe(spans);
    // Each block was sent again once, not once per job of it.
    expect(warnings.filter((w) => w.startsWith(SENT_AGAIN)).length - sentBefore).toBe(new Set(blocks).size);
    // Marked stored, their rows removed from Redis.
    for (const id of ids) {
      expect(await redis.hexists(jobKey(id), 'aosRowsStored')).toBe(1);
      expect(await redis.exists(rowsKeyOf(prefix, id))).toBe(0);
    }
  });

  it('is not sent again when one of its jobs was marked stored (the block was stored whole)', async () => {
    await svc.service.storage.client.command({ query: 'TRUNCATE TABLE spans' });
    const { ids, blocks } = await storeAll();
    const sentBefore = warnings.filter((w) => w.startsWith(SENT_AGAIN)).length;
    // The crash came after the first job of each block was marked.
    const marked = new Set(ids.map((id, i) => blocks.indexOf(blocks[i]!) === i ? i : -1).filter((i) => i >= 0));
    await runJobs(() => requeueAsCrashed(ids, blocks, marked));
    expect(warnings.filter((w) => w.startsWith(SENT_AGAIN)).length).toBe(sentBefore);
    expect(await rawSpanCount(traceIds)).toBe(spans);
    for (const id of ids) expect(await redis.exists(rowsKeyOf(prefix, id))).toBe(0);
  });

  it('stores a new batch with the same rows under other job ids', async () => {
    const before = await rawSpanCount(traceIds);
    await runJobs(() => Promise.all(exportsOf.map((e) => addSpanRowsJob(queue, e.data, e.rows))));
    expect(await rawSpanCount(traceIds)).toBe(before + spans);
  });
});

describe('a queue holding jobs of both row formats', () => {
  it('stores every job, each insert in one format, and sends a block again in the format it went in', async () => {
    // Queued together and taken together: old JSON jobs (no rowsFormat) between RowBinary ones.
    const mixed = [exportRows(11, 2, 4), exportRows(12, 3, 4, true), exportRows(13, 2, 5), exportRows(14, 2, 5, true), exportRows(15, 1, 6), exportRows(16, 2, 6)];
    const mixedTraces = mixed.flatMap((e) => e.data.traceIds);
    const mixedSpans = mixed.reduce((n, e) => n + e.data.rowCount, 0);
    const { ids, blocks } = await storeAll(mixed);
    expect(await rawSpanCount(mixedTraces)).toBe(mixedSpans);
    const formatOf = new Map(ids.map((id, i) => [id, 'rowsFormat' in mixed[i]!.data ? 'RowBinary' : 'JSON']));
    for (const block of new Set(blocks)) expect(new Set(block.split(',').map((id) => formatOf.get(id)))).toHaveProperty('size', 1);
    // Both formats were taken (and an insert of each format was formed).
    expect(new Set(blocks.map((b) => formatOf.get(b.split(',')[0]!)))).toEqual(new Set(['RowBinary', 'JSON']));

    // The crash after every insert: each block re-formed from Redis in its own format, stored once.
    const sentBefore = warnings.filter((w) => w.startsWith(SENT_AGAIN)).length;
    await runJobs(() => requeueAsCrashed(ids, blocks, new Set(), mixed));
    expect(warnings.filter((w) => w.startsWith(SENT_AGAIN)).length - sentBefore).toBe(new Set(blocks).size);
    expect(await rawSpanCount(mixedTraces)).toBe(mixedSpans);
  });
});
