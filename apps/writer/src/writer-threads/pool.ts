import { Worker as Thread } from 'node:worker_threads';
import type { JobOutcome } from '@aos/metrics';
import { countOutcome, type DeadLetterCause, type WorkerStats } from '@aos/queue';
import { rowsRefusal } from '@aos/storage';
import type { BatchStore } from '../span-batches/job.ts';
import type { WriterSettings } from '@aos/config';
import type { Logger, LogLevel } from '@aos/log';
import type { FromWriterThread, ToWriterThread, WriterThreadData } from './protocol.ts';

/** A crashed thread is replaced after this pause, so a thread that dies at start cannot spin. */
const RESTART_DELAY_MS = 1000;

export interface WriterThreadsOptions {
  redisUrl: string;
  prefix: string;
  settings: WriterSettings;
  logger: Logger;
  logLevel: LogLevel;
  /** Told how each job ended on any thread. */
  onOutcome(outcome: JobOutcome, cause?: DeadLetterCause): void;
}

export interface WriterThreads {
  stats: WorkerStats;
  close(): Promise<void>;
}

/**
 * Runs the writer's worker threads and serves their requests: each thread hands over a
 * job's encoded rows, then its follow-up, and waits for each to be done before going on. A thread that dies
 * is replaced (its in-flight jobs stall and are taken over by BullMQ); only `close` stops
 * them for good.
 */
export function startWriterThreads(
  deps: WriterThreadsOptions,
  store: BatchStore,
): WriterThreads {
  const stats: WorkerStats = { completed: 0, failed: 0, stalled: 0 };
  let closing = false;

  const run = (threadIndex: number): { thread: Thread; exited: Promise<void> } => {
    const workerData: WriterThreadData = {
      redisUrl: deps.redisUrl,
      prefix: deps.prefix,
      settings: deps.settings,
      logLevel: deps.logLevel,
      threadIndex,
    };
    const thread = new Thread(new URL('./boot.mjs', import.meta.url), { workerData });
    const reply = (message: ToWriterThread) => thread.postMessage(message);
    thread.on('message', (message: FromWriterThread) => {
      if (message.type === 'rows' || message.type === 'followUp') {
        const work = message.type === 'rows' ? store.rows(message.batch) : store.followUp(message.batch);
        work.then(
          () => reply({ type: 'done', id: message.id }),
          (err: Error) => reply({ type: 'failed', id: message.id, message: err.message, refusal: rowsRefusal(err) }),
        );
      } else if (message.type === 'job') {
        countOutcome(stats, message.outcome);
        deps.onOutcome(message.outcome, message.cause);
      }
    });
    thread.on('error', (err) => deps.logger.error('writer thread crashed', { threadIndex, error: err }));
    const exited = new Promise<void>((resolve) => {
      thread.once('exit', (code) => {
        resolve();
        if (closing) return;
        deps.logger.error('writer thread exited; starting a new one', { threadIndex, code });
        setTimeout(() => {
          if (!closing) slots[threadIndex] = run(threadIndex);
        }, RESTART_DELAY_MS).unref();
      });
    });
    return { thread, exited };
  };

  const slots = Array.from({ length: deps.settings.threads }, (_, i) => run(i));
  return {
    stats,
    async close() {
      closing = true;
      // Each thread closes its BullMQ worker (waiting for its active jobs, whose rows this
      // thread's batcher is still writing) and then exits on its own.
      for (const slot of slots) slot.thread.postMessage({ type: 'close' } satisfies ToWriterThread);
      await Promise.all(slots.map((slot) => slot.exited));
    },
  };
}
