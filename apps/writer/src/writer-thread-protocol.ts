import type { WriterSettings } from '@aos/config';
import type { LogLevel } from '@aos/log';
import type { JobOutcome } from '@aos/metrics';
import type { DeadLetterCause, RefusalCategory } from '@aos/queue';
import type { EncodedBatch } from './span-batch-encoder.ts';

/** What a writer thread is started with. */
export interface WriterThreadData {
  redisUrl: string;
  prefix: string;
  settings: WriterSettings;
  logLevel: LogLevel;
  threadIndex: number;
}

/** Thread → main. */
export type FromWriterThread =
  | { type: 'rows'; id: number; batch: EncodedBatch }
  | { type: 'job'; outcome: JobOutcome; cause?: DeadLetterCause };

/** Main → thread. */
export type ToWriterThread =
  | { type: 'stored'; id: number }
  /** `refusal`: the engine refused the rows themselves (the job spends an attempt); null: the job waits for storage. */
  | { type: 'failed'; id: number; message: string; refusal: RefusalCategory | null }
  | { type: 'close' };
