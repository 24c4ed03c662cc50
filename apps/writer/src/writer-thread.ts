import { parentPort, workerData } from 'node:worker_threads';
import { loadPrices } from '@aos/domain';
import { createLogger } from '@aos/log';
import { INGEST_QUEUE, createRedisConnection, startWorker } from '@aos/queue';
import { StorageUnavailableError, isStorageUnavailable } from '@aos/storage';
import { createSpanBatchEncoder } from './span-batch-encoder.ts';
import type { FromWriterThread, ToWriterThread, WriterThreadData } from './writer-thread-protocol.ts';

// A writer thread: takes jobs from the queue and does their CPU work (parse the payload;
// normalize and encode a job queued in the older shape) off the main thread, then hands
// the encoded rows to the main thread, which owns the storage connection and batches them
// into inserts. A job completes only when the main thread says its rows are stored.
const data = workerData as WriterThreadData;
const port = parentPort!;
const send = (message: FromWriterThread) => port.postMessage(message);
const logger = createLogger(data.logLevel, { service: 'writer', thread: data.threadIndex });
const processBatch = createSpanBatchEncoder({
  prices: loadPrices(data.settings.modelPricesFile),
  maxValueBytes: data.settings.maxAttributeBytes,
});

const waiting = new Map<number, { resolve(): void; reject(err: Error): void }>();
let nextId = 0;
const connection = createRedisConnection(data.redisUrl, logger);
const { worker } = startWorker({
  queue: INGEST_QUEUE,
  connection,
  prefix: data.prefix,
  concurrency: data.settings.concurrency,
  lockDurationMs: data.settings.lockDurationMs,
  logger,
  unavailable: isStorageUnavailable,
  // Counted on the main thread, whose registry /metrics reads.
  onOutcome: (outcome) => send({ type: 'job', outcome }),
  processor: async (job) => {
    const batch = processBatch(job.data);
    const id = nextId++;
    const stored = new Promise<void>((resolve, reject) => waiting.set(id, { resolve, reject }));
    send({ type: 'rows', id, batch });
    await stored;
    return { spans: batch.rows };
  },
});

port.on('message', async (message: ToWriterThread) => {
  if (message.type === 'close') {
    await worker.close();
    await connection.quit();
    // The main thread waits for this thread's exit.
    process.exit(0);
  }
  const entry = waiting.get(message.id);
  if (!entry) return;
  waiting.delete(message.id);
  if (message.type === 'stored') entry.resolve();
  else entry.reject(message.unavailable ? new StorageUnavailableError(message.message) : new Error(message.message));
});
