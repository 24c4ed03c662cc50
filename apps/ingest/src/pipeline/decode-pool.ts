import { Tinypool } from 'tinypool';
import type { PriceTable } from '@aos/domain';
import type { CompiledPolicy } from '@aos/masking';
import type { ReadExportFailure } from '@aos/otlp';
import type { DecodeTask } from './decode-thread.ts';
import type { MaskingSource } from './masking-source.ts';
import { IngestRefusal } from './refusal.ts';
import { readSpanRows, type SpanRowsInput, type SpanRowsResult } from './span-rows.ts';
import type { StageTimes } from './stage-times.ts';
import { withTimeout } from './timeout.ts';

/**
 * How long a large body may wait for a free decode thread. Under a flood of heavy bodies an
 * exporter is better told to retry (503 with Retry-After) than answered after seconds in a
 * queue; a burst of ordinary large batches still waits its turn.
 */
const DECODE_QUEUE_WAIT_MS = 500;

export interface DecodePoolOptions {
  /** Threads (INGEST_DECODE_THREADS); 0 decodes everything on the calling thread. */
  threads: number;
  /** Bodies smaller than this (INGEST_DECODE_THREAD_MIN_BYTES) are decoded in place: a thread round trip costs more. */
  minBytes: number;
  /** How long a body may decode on its thread before the export is refused as overloaded (INGEST_DECODE_TIME_LIMIT_MS). */
  timeLimitMs: number;
  /** The price table, for bodies turned into rows in place. */
  prices: PriceTable;
  /** MODEL_PRICES_FILE, which each thread reads for itself. */
  pricesFile: string | undefined;
}

/** A project's masking policy, compiled for this thread and as a source for a decode thread. */
export interface PolicyForms {
  masking: CompiledPolicy | null;
  maskingSource: MaskingSource | null;
}

export interface DecodePool {
  /** `stages` is marked `queue` (waiting for a thread) and `decode`. */
  spanRows(input: SpanRowsInput, policy: PolicyForms, stages?: StageTimes): Promise<SpanRowsResult | ReadExportFailure>;
  close(): Promise<void>;
}

/**
 * Turns export bodies into rows ready to insert (readSpanRows). A large body takes hundreds
 * of milliseconds of CPU (a 100,000-attribute or megabyte-string one, seconds when several
 * arrive at once); on worker threads that time no longer holds the event loop, so health
 * checks, small exports and the Redis calls of admission keep being answered meanwhile.
 */
export function createDecodePool(opts: DecodePoolOptions): DecodePool {
  const pool =
    opts.threads > 0
      ? new Tinypool({
          filename: new URL('./decode-thread-boot.mjs', import.meta.url).href,
          // Started with the service and kept: a thread's start (the TypeScript loader, the
          // decoders) takes a second or more on a busy machine, too long for the body waiting on it.
          minThreads: opts.threads,
          maxThreads: opts.threads,
        })
      : null;
  const slots = createSlots(opts.threads);
  return {
    async spanRows(input, policy, stages) {
      const body = input.body;
      if (!pool || body.byteLength < opts.minBytes) {
        const rows = readSpanRows(input, policy.masking, opts.prices);
        stages?.mark('decode');
        return rows;
      }
      const granted = await slots.acquire(DECODE_QUEUE_WAIT_MS);
      stages?.mark('queue');
      if (!granted) throw new IngestRefusal('overloaded', `every decode thread stayed busy for ${DECODE_QUEUE_WAIT_MS} ms; retry later`);
      const task: DecodeTask = { ...input, masking: policy.maskingSource, pricesFile: opts.pricesFile };
      // A body that owns its whole buffer is moved, not copied; a view into a larger one is copied.
      const owned = body.byteOffset === 0 && body.byteLength === body.buffer.byteLength && body.buffer instanceof ArrayBuffer;
      // The slot is the thread's: it is given back when the thread is done, even after the export was answered.
      const decoding = pool.run(task, owned ? { transferList: [body.buffer as ArrayBuffer] } : {}) as Promise<SpanRowsResult | ReadExportFailure>;
      void decoding.finally(() => slots.release()).catch(() => {});
      // On two busy cores a 100,000-attribute JSON body (0.2–0.4 s of CPU alone) took 3 to 6 s
      // on its thread in the fuzz bench, the exporter waiting all along; told 503 with
      // Retry-After it sends again once the machine has room. A thread cannot be stopped
      // mid-task without being restarted (a second or more), so it finishes the body, unused.
      const late = () => new IngestRefusal('overloaded', `the body took more than ${opts.timeLimitMs} ms to decode on this busy service; retry later`);
      const rows = await withTimeout(decoding, opts.timeLimitMs, late);
      stages?.mark('decode');
      return rows;
    },
    async close() {
      await pool?.destroy();
    },
  };
}

/** `count` slots taken in arrival order; a waiter not served within its wait gives up. */
function createSlots(count: number) {
  let free = count;
  const waiters: Array<(granted: boolean) => void> = [];
  return {
    acquire(waitMs: number): Promise<boolean> {
      if (free > 0) {
        free--;
        return Promise.resolve(true);
      }
      return new Promise<boolean>((resolve) => {
        const waiter = (granted: boolean) => {
          clearTimeout(timer);
          resolve(granted);
        };
        const timer = setTimeout(() => {
          waiters.splice(waiters.indexOf(waiter), 1);
          resolve(false);
        }, waitMs);
        waiters.push(waiter);
      });
    },
    release(): void {
      const next = waiters.shift();
      if (next) next(true);
      else free++;
    },
  };
}
