import type { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { INGEST_QUEUE, type IngestJobPayload } from './ingest-queue.ts';
import { prefixOf, redisOf } from './span-rows-key.ts';

/**
 * What the writers stored of the ingest queue recently, summed over every writer process:
 * ingest compares the queue's backlog with it (apps/ingest, writer-pace-pressure.ts). Each
 * writer adds the span rows and jobs of every insert it committed to a counter of the
 * current second (a hash `<prefix>:span-batches:stored:<unix second>`, gone after
 * STORED_KEY_TTL_SECONDS); ingest sums the last seconds. The second is Redis's clock in
 * both scripts, so writers and ingest on hosts whose clocks disagree count the same
 * seconds. A counter is only a recent rate, never a balance: a crash between an insert and
 * its count loses one insert's worth from the rate for a few seconds, nothing more.
 */
export interface WriterPace {
  /** Span rows the writers committed in the window. */
  rows: number;
  /** Jobs whose rows those inserts carried. */
  jobs: number;
  /** Seconds from the window's first second with a commit to now, this second counted whole; 0 when none committed. */
  seconds: number;
}

/** Long enough for any window ingest reads, short enough that the keys cost nothing. */
const STORED_KEY_TTL_SECONDS = 60;

// TIME before the writes: Redis replicates a script's effects, so a clock read is allowed.
const RECORD = `
local key = KEYS[1] .. redis.call('TIME')[1]
redis.call('HINCRBY', key, 'rows', ARGV[1])
redis.call('HINCRBY', key, 'jobs', ARGV[2])
redis.call('EXPIRE', key, ARGV[3])
return 1`;

const READ = `
local now = tonumber(redis.call('TIME')[1])
local rows, jobs, first = 0, 0, nil
for s = now - tonumber(ARGV[1]) + 1, now do
  local counts = redis.call('HMGET', KEYS[1] .. s, 'rows', 'jobs')
  if counts[2] then
    rows = rows + tonumber(counts[1] or '0')
    jobs = jobs + tonumber(counts[2])
    first = first or s
  end
end
return { rows, jobs, first and (now - first + 1) or 0 }`;

/** The key of a second's counts, without the second. */
function storedKeyBase(prefix: string): string {
  return `${prefix}:${INGEST_QUEUE}:stored:`;
}

/** Counts one committed insert of `rows` span rows from `jobs` jobs in the current second (one round trip). */
export async function recordStoredSpans(redis: Redis, prefix: string, rows: number, jobs: number): Promise<void> {
  await redis.eval(RECORD, 1, storedKeyBase(prefix), rows, jobs, STORED_KEY_TTL_SECONDS);
}

/** What the writers stored in the last `windowSeconds` seconds (at most STORED_KEY_TTL_SECONDS), on the queue's own connection. */
export async function readWriterPace(queue: Queue<IngestJobPayload>, windowSeconds: number): Promise<WriterPace> {
  if (windowSeconds > STORED_KEY_TTL_SECONDS) throw new Error(`a writer pace window of ${windowSeconds} s outlasts its counters`);
  const redis = await redisOf(queue);
  const [rows, jobs, seconds] = (await redis.eval(READ, 1, storedKeyBase(prefixOf(queue)), windowSeconds)) as [number, number, number];
  return { rows, jobs, seconds };
}
