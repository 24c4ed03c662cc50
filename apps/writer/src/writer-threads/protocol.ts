import type { WriterSettings } from '@aos/config';
import type { LogLevel } from '@aos/log';
import type { JobOutcome } from '@aos/metrics';
import type { DeadLetterCause } from '@aos/queue';
import type { RefusalCategory } from '@aos/storage';
import type { EncodedBatch } from '../span-batches/encoder.ts';
import type { BatchFollowUp } from '../span-batches/job.ts';

/** What a writer thread is started with. */
export interface WriterThreadData {
  redisUrl: string;
  prefix: string;
  settings: WriterSettings;
  logLevel: LogLevel;
  threadIndex: number;
}

/** Thread → main: a job's rows to store, or the follow-up of rows stored (see BatchStore); each answered by `done` or `failed`. */
export type FromWriterThread =
  | { type: 'rows'; id: number; batch: EncodedBatch }
  | { type: 'followUp'; id: number; batch: BatchFollowUp }
  | { type: 'job'; outcome: JobOutcome; cause?: DeadLetterCause };

/** Main → thread. */
export type ToWriterThread =
  | { type: 'done'; id: number }
  /** `refusal`: the engine refused the rows themselves (the job spends an attempt); null: the job waits for storage. */
  | { type: 'failed'; id: number; message: string; refusal: RefusalCategory | null }
  | { type: 'close' };
