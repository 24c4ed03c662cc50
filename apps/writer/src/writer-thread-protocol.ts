import type { WriterSettings } from '@aos/config';
import type { LogLevel } from '@aos/log';
import type { JobOutcome } from '@aos/metrics';
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
  | { type: 'job'; outcome: JobOutcome };

/** Main → thread. */
export type ToWriterThread =
  | { type: 'stored'; id: number }
  /** `unavailable`: storage could not be reached, so the job waits rather than spending an attempt. */
  | { type: 'failed'; id: number; message: string; unavailable: boolean }
  | { type: 'close' };
