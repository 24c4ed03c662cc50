// CPU of the two halves of the ingest path and of the queue between them, per 1,000 spans,
// for the three queue payloads, through a real redis-server and BullMQ:
// - export: the decoded export (queued before issue 21; the writer validates, normalizes and encodes);
// - inline: ready-to-insert rows as one string in the job's JSON (the previous shape: BullMQ
//   escapes every quote of the rows again);
// - key: the rows' bytes under a Redis key of their own, the job naming it (what ingest queues now).
// Ingest: body → rows → in Redis (addSpanRowsJob or queue.add, awaited one by one, as an
// export awaits its own). Writer: a BullMQ worker takes every job and runs the writer's own
// job code (parse; read and remove the rows key) with a store that keeps nothing. Redis: the
// redis-server's CPU over both halves, the bytes queued (job JSON, and the rows' key) and
// its memory per queued span (used_memory before and after the ingest half, allocator's
// rounding included); and the wall time of the Redis part of one enqueue (an export's ack
// waits for it). Rounds alternate export, inline, key, … so machine load hits all.
// Usage: node --import tsx bench/queue-payload-bench.ts   (PAYLOAD_REQUESTS=…, PAYLOAD_ROUNDS=…)
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:net';
import { Queue, Worker } from 'bullmq';
import { loadPriceTable } from '@aos/domain';
import { createLogger } from '@aos/log';
import { readExport } from '@aos/otlp';
import { INGEST_QUEUE, addSpanRowsJob, createRedisConnection, rowsKeyOf, type IngestJobPayload } from '@aos/queue';
import { readSpanRows } from '../apps/ingest/src/pipeline/span-rows.ts';
import { createSpanBatchJobRunner } from '../apps/writer/src/span-batches/job.ts';
import { agentRequest } from './agent-spans.ts';
import { cpuSeconds } from './proc-cpu.ts';

const REQUESTS = Number(process.env.PAYLOAD_REQUESTS ?? 20);
const ROUNDS = Number(process.env.PAYLOAD_ROUNDS ?? 4);
const LIMITS = { maxAttributes: 1024, maxEvents: 1024, maxLinks: 128, maxValueLength: 1 << 20, maxValueDepth: 16 };
const PREFIX = 'bench';
const prices = loadPriceTable();
const bodies = Array.from({ length: REQUESTS }, (_, i) => agentRequest(1000, 700_000 + i));
const spans = bodies.reduce((n, b) => n + b.spans, 0);

const port = await freePort();
const redisServer = spawn('redis-server', ['--port', String(port), '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
const redis = createRedisConnection(`redis://127.0.0.1:${port}`);
await waitForRedis();
const queue = new Queue<IngestJobPayload>(INGEST_QUEUE, { connection: redis, prefix: PREFIX, defaultJobOptions: { removeOnComplete: true } });
const runJob = createSpanBatchJobRunner({ redis, prefix: PREFIX, prices, maxValueBytes: 262_144, logger: createLogger('error') });

/** What one body's enqueue put in Redis, and how long the Redis part (after the rows were built) took. */
interface Queued {
  bytes: number;
  redisMs: number;
}

/** Ingest's half for one body: the rows (or the export) in Redis. */
const enqueue = {
  async export(body: Uint8Array, receivedAtMs: number): Promise<Queued> {
    const read = readExport(body, 'protobuf', { nowUnixNano: BigInt(receivedAtMs) * 1_000_000n, limits: LIMITS });
    if (!read.ok) throw new Error(read.message);
    const payload = { projectId: 'bench', receivedAtMs, export: read.accepted };
    return timedRedis(() => queue.add('batch', payload), () => JSON.stringify(payload).length);
  },
  async inline(body: Uint8Array, receivedAtMs: number): Promise<Queued> {
    const { chunk, ...job } = rowsOf(body, receivedAtMs);
    // The previous encoder answered the text itself: turning the bytes back is not booked.
    const before = process.cpuUsage();
    const payload = { ...job, rows: Buffer.from(chunk).toString() };
    const used = process.cpuUsage(before);
    notBookedMs += (used.user + used.system) / 1000;
    return timedRedis(() => queue.add('batch', payload), () => Buffer.byteLength(JSON.stringify(payload)));
  },
  async key(body: Uint8Array, receivedAtMs: number): Promise<Queued> {
    const { chunk, ...job } = rowsOf(body, receivedAtMs);
    return timedRedis(() => addSpanRowsJob(queue, job, chunk), () => chunk.byteLength + JSON.stringify({ ...job, rowsKey: rowsKeyOf(PREFIX, randomUUID()) }).length);
  },
};

/** Times the Redis part of an enqueue; the bytes are counted outside the booked CPU. */
async function timedRedis(send: () => Promise<unknown>, bytes: () => number): Promise<Queued> {
  const start = performance.now();
  await send();
  const redisMs = performance.now() - start;
  const before = process.cpuUsage();
  const queued = { bytes: bytes(), redisMs };
  const used = process.cpuUsage(before);
  notBookedMs += (used.user + used.system) / 1000;
  return queued;
}
type Shape = keyof typeof enqueue;
/** CPU a round spends only to stage a payload as the previous version had it. */
let notBookedMs = 0;

function rowsOf(body: Uint8Array, receivedAtMs: number) {
  const input = { body, encoding: 'protobuf' as const, limits: LIMITS, projectId: 'bench', receivedAtMs, dimensionKeys: [], maxValueBytes: 262_144 };
  const read = readSpanRows(input, null, prices);
  if (!read.ok || !read.batch) throw new Error('no rows');
  const { chunk, rows, deploymentIds, traceIds, telemetryScores } = read.batch;
  return { projectId: 'bench', receivedAtMs, chunk, rowCount: rows, deploymentIds, traceIds, telemetryScores };
}

/** The writer's half: every waiting job taken and run; resolves when all are done. */
async function drain(jobs: number): Promise<void> {
  let done = 0;
  let finished: () => void = () => {};
  const all = new Promise<void>((resolve) => (finished = resolve));
  const worker = new Worker<IngestJobPayload>(INGEST_QUEUE, (job) => runJob(job, { rows: async () => {}, followUp: async () => {} }), { connection: redis, prefix: PREFIX, concurrency: 4 });
  worker.on('completed', () => ++done === jobs && finished());
  worker.on('failed', (_job, err) => {
    console.error(err);
    process.exit(1);
  });
  await all;
  await worker.close();
}

async function usedMemory(): Promise<number> {
  return Number(/used_memory:(\d+)/.exec(await redis.info('memory'))![1]);
}

const totals = Object.fromEntries((Object.keys(enqueue) as Shape[]).map((s) => [s, { ingest: 0, writer: 0, redis: 0, memory: 0, bytes: 0, enqueueMs: [] as number[], rounds: 0 }])) as Record<
  Shape,
  { ingest: number; writer: number; redis: number; memory: number; bytes: number; enqueueMs: number[]; rounds: number }
>;
const shapes = Object.keys(enqueue) as Shape[];
for (let round = 0; round < ROUNDS * shapes.length; round++) {
  const shape = shapes[round % shapes.length]!;
  const t = totals[shape];
  const memoryBefore = await usedMemory();
  const redisBefore = cpuSeconds(redisServer.pid!);
  const receivedAtMs = Date.now();
  notBookedMs = 0;
  const before = process.cpuUsage();
  for (const b of bodies) {
    const queued = await enqueue[shape](b.body, receivedAtMs);
    t.enqueueMs.push(queued.redisMs);
    t.bytes += queued.bytes;
  }
  const ingested = process.cpuUsage(before);
  t.ingest += (ingested.user + ingested.system) / 1000 - notBookedMs;
  t.memory += (await usedMemory()) - memoryBefore;
  const writing = process.cpuUsage();
  await drain(bodies.length);
  const written = process.cpuUsage(writing);
  t.writer += (written.user + written.system) / 1000;
  t.redis += (cpuSeconds(redisServer.pid!) - redisBefore) * 1000;
  t.rounds += 1;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
console.log(`${spans} spans in ${REQUESTS} requests of 1000, ${ROUNDS} rounds per payload, alternating`);
console.log('| payload | ingest CPU ms / 1,000 spans | writer CPU ms / 1,000 spans | redis-server CPU ms / 1,000 spans | total | queued bytes / span | Redis used_memory / span | Redis part of the enqueue, p50 ms / request |');
console.log('| --- | --- | --- | --- | --- | --- | --- | --- |');
const per = (t: (typeof totals)[Shape], ms: number) => ms / t.rounds / (spans / 1000);
for (const shape of shapes) {
  const t = totals[shape];
  const total = per(t, t.ingest + t.writer + t.redis);
  console.log(
    `| ${shape} | ${per(t, t.ingest).toFixed(1)} | ${per(t, t.writer).toFixed(1)} | ${per(t, t.redis).toFixed(1)} | ${total.toFixed(1)} | ${(t.bytes / t.rounds / spans).toFixed(0)} | ${(t.memory / t.rounds / spans).toFixed(0)} | ${median(t.enqueueMs).toFixed(2)} |`,
  );
}
const ratio = (k: 'ingest' | 'writer' | 'redis') => (totals.key[k] / totals.inline[k]).toFixed(2);
console.log(`key / inline: ingest ${ratio('ingest')}×, writer ${ratio('writer')}×, redis-server ${ratio('redis')}×`);

await queue.close();
await redis.quit();
redisServer.kill();

async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port: free } = server.address() as { port: number };
  server.close();
  return free;
}

async function waitForRedis(): Promise<void> {
  for (let i = 0; i < 100; i++) {
    try {
      if ((await redis.ping()) === 'PONG') return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('redis-server did not start');
}
