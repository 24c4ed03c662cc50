import { parentPort, workerData } from 'node:worker_threads';
import { loadPrices } from '@aos/domain';
import { createLogger } from '@aos/log';
import { INGEST_QUEUE, closeWorker, createRedisConnection, startWorker } from '@aos/queue';
import { RowsRefusedError, writeFailureWaits } from '@aos/storage';
import type { EncodedBatch } from '../span-batches/encoder.ts';
import { createSpanBatchJobRunner, type BatchFollowUp, type BatchStore } from '../span-batches/job.ts';
import type { FromWriterThread, ToWriterThread, WriterThreadData } from './protocol.ts';

// A writer thread: takes jobs from the queue and does their work up to the insert (parse
// the payload, read its rows from Redis; normalize and encode a job queued in the older
// shape) off the main thread, then hands the encoded rows to the main thread, which owns
// the storage connection and batches them into inserts. A job completes only when the
// main thread says its rows are stored (and its rows key is removed) and their follow-up is done.
const data = workerData as WriterThreadData;
const port = parentPort!;
const send = (message: FromWriterThread) => port.postMessage(message);
const logger = createLogger(data.logLevel, { service: 'writer', thread: data.threadIndex });
const waiting = new Map<number, { resolve(): void; reject(err: Error): void }>();
let nextId = 0;
const connection = createRedisConnection(data.redisUrl, logger);
const runJob = createSpanBatchJobRunner({
  redis: connection,
  prefix: data.prefix,
  prices: loadPrices(data.settings.modelPricesFile),
  maxValueBytes: data.settings.maxAttributeBytes,
  logger,
});

/** Asks the main thread to do one step of a job's storage work and waits until it is done. */
function onMainThread(message: { type: 'rows'; batch: EncodedBatch } | { type: 'followUp'; batch: BatchFollowUp }, transfer: ArrayBuffer[] = []): Promise<void> {
  const id = nextId++;
  const done = new Promise<void>((resolve, reject) => waiting.set(id, { resolve, reject }));
  port.postMessage({ ...message, id } satisfies FromWriterThread, transfer);
  return done;
}

const mainThreadStore: BatchStore = {
  rows(batch) {
    // The bytes are moved, not copied, to the main thread; a view into a larger buffer (a
    // Redis reply is a slice of the client's pool) is copied out first, as moving the pool
    // would take it from the client and cloning it would copy all of it.
    const chunk = batch.chunk.byteOffset === 0 && batch.chunk.byteLength === batch.chunk.buffer.byteLength ? batch.chunk : new Uint8Array(batch.chunk);
    return onMainThread({ type: 'rows', batch: { ...batch, chunk } }, [chunk.buffer as ArrayBuffer]);
  },
  followUp: (batch) => onMainThread({ type: 'followUp', batch }),
};
const { worker } = startWorker({
  queue: INGEST_QUEUE,
  connection,
  prefix: data.prefix,
  concurrency: data.settings.concurrency,
  lockDurationMs: data.settings.lockDurationMs,
  logger,
  waits: writeFailureWaits,
  // Counted on the main thread, whose registry /metrics reads.
  onOutcome: (outcome, cause) => send({ type: 'job', outcome, cause }),
  processor: (job) => runJob(job, mainThreadStore),
});

port.on('message', async (message: ToWriterThread) => {
  if (message.type === 'close') {
    await closeWorker(worker, logger);
    await connection.quit();
    // The main thread waits for this thread's exit.
    process.exit(0);
  }
  const entry = waiting.get(message.id);
  if (!entry) return;
  waiting.delete(message.id);
  if (message.type === 'done') entry.resolve();
  else entry.reject(message.refusal ? new RowsRefusedError(message.refusal, message.message) : new Error(message.message));
});
