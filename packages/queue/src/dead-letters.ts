import type { Queue } from 'bullmq';
import type { RefusalCategory } from '@aos/storage';
import { isSpanRowsPayload, type IngestJobPayload } from './ingest-queue.ts';
import { prefixOf, redisOf, rowsKeyOf } from './span-rows-key.ts';

export interface DeadLetter {
  jobId: string;
  projectId: string;
  /** null when the payload is too malformed to count. */
  spanCount: number | null;
  receivedAt: string | null;
  failedAt: string | null;
  attempts: number;
  /** Why it failed, as a category; the failure's own text (engine messages, paths) stays in the writer's log under the job id. */
  cause: DeadLetterCause;
  /** With cause `rows_refused`: what the engine found wrong with the rows; otherwise null. */
  refusal: RefusalCategory | null;
  /** The cause in a sentence. */
  reason: string;
}

export type DeadLetterCause = 'invalid_batch' | 'stalled' | 'rows_refused' | 'rows_missing' | 'storage_error';

const REASONS: Record<DeadLetterCause, string> = {
  invalid_batch: 'the batch could not be decoded; retrying will not help',
  stalled: 'the writer stopped while writing the batch, too many times',
  rows_refused: 'the storage engine refused these rows (see refusal); the server log has its message under this job id',
  rows_missing: "the batch's rows were gone from Redis before they were stored (evicted, flushed or removed by hand): they are lost",
  storage_error: 'storing the batch failed; the server log has the cause under this job id',
};


/**
 * How the writer words the failures that end as a dead letter of a known cause (the job's
 * failed reason is the error's message): `rows refused (<category>): <engine message>` and
 * `rows missing: …`.
 */
export const ROWS_REFUSED_PREFIX = 'rows refused';
export const ROWS_MISSING_PREFIX = 'rows missing';

/** The category of a failed job's reason (the writer's error message, or BullMQ's own words for a stalled job). */
export function deadLetterCauseOf(failedReason: string): { cause: DeadLetterCause; refusal: RefusalCategory | null } {
  const refused = new RegExp(`^${ROWS_REFUSED_PREFIX} \\((parse|type|size)\\)`).exec(failedReason);
  if (refused) return { cause: 'rows_refused', refusal: refused[1] as RefusalCategory };
  const cause: DeadLetterCause = failedReason.startsWith('invalid span batch payload')
    ? 'invalid_batch'
    : failedReason.startsWith(ROWS_MISSING_PREFIX)
      ? 'rows_missing'
      : /stalled more than allowable limit/.test(failedReason)
        ? 'stalled'
        : 'storage_error';
  return { cause, refusal: null };
}

/**
 * Batches that exhausted their attempts. They stay in the failed set until an operator
 * retries or removes them; this lists them for one project, newest first.
 */
export async function listDeadLetters(
  queue: Queue<IngestJobPayload>,
  opts: { projectId: string; limit: number },
): Promise<DeadLetter[]> {
  const out: DeadLetter[] = [];
  const pageSize = 200;
  for (let start = 0; out.length < opts.limit; start += pageSize) {
    const jobs = await queue.getFailed(start, start + pageSize - 1);
    if (jobs.length === 0) break;
    for (const job of jobs) {
      if (!job || job.data?.projectId !== opts.projectId) continue;
      const { cause, refusal } = deadLetterCauseOf(job.failedReason ?? '');
      out.push({
        jobId: String(job.id),
        projectId: job.data.projectId,
        spanCount: countSpans(job.data),
        receivedAt: Number.isFinite(job.data.receivedAtMs) ? new Date(job.data.receivedAtMs).toISOString() : null,
        failedAt: job.finishedOn ? new Date(job.finishedOn).toISOString() : null,
        attempts: job.attemptsMade,
        cause,
        refusal,
        reason: REASONS[cause],
      });
      if (out.length >= opts.limit) break;
    }
  }
  return out;
}

/**
 * Puts a project's dead letters back in the queue: the one with `jobId`, or all of them,
 * each with a fresh set of attempts. Answers how many went back; a letter already put back
 * (or another project's) is not counted, so asking twice puts nothing back twice, and a
 * batch that is stored twice reads once (spans are keyed).
 */
export async function retryDeadLetters(queue: Queue<IngestJobPayload>, opts: { projectId: string; jobId?: string }): Promise<number> {
  const ids = opts.jobId !== undefined ? [opts.jobId] : await failedJobIds(queue, opts.projectId);
  let retried = 0;
  for (const id of ids) {
    const job = await queue.getJob(id);
    if (!job || job.data?.projectId !== opts.projectId || !(await job.isFailed())) continue;
    await job.retry('failed', { resetAttemptsMade: true, resetAttemptsStarted: true });
    retried += 1;
  }
  return retried;
}

/**
 * Removes a project's dead letters for good: the one with `jobId`, or all of them, each
 * with its rows (the key a failed job keeps so that a retry finds them). Answers how many
 * were removed; a letter that is no longer failed (or another project's) is left alone.
 */
export async function removeDeadLetters(queue: Queue<IngestJobPayload>, opts: { projectId: string; jobId?: string }): Promise<number> {
  const ids = opts.jobId !== undefined ? [opts.jobId] : await failedJobIds(queue, opts.projectId);
  const redis = await redisOf(queue);
  let removed = 0;
  for (const id of ids) {
    const job = await queue.getJob(id);
    if (!job || job.data?.projectId !== opts.projectId || !(await job.isFailed())) continue;
    await job.remove();
    // By the job's id, not its data: a malformed letter's rows go too (older shapes have no key; deleting none is harmless).
    await redis.del(rowsKeyOf(prefixOf(queue), id));
    removed += 1;
  }
  return removed;
}

/** Ids of the project's dead letters, all collected before any is retried or removed (either shifts the failed set's pages). */
async function failedJobIds(queue: Queue<IngestJobPayload>, projectId: string): Promise<string[]> {
  const ids: string[] = [];
  const pageSize = 500;
  for (let start = 0; ; start += pageSize) {
    const jobs = await queue.getFailed(start, start + pageSize - 1);
    if (jobs.length === 0) return ids;
    for (const job of jobs) if (job?.id && job.data?.projectId === projectId) ids.push(job.id);
  }
}

/** Spans in a batch of either shape; a dead letter may be malformed, so nothing about its shape is assumed. */
export function countSpans(payload: IngestJobPayload): number | null {
  if (isSpanRowsPayload(payload)) {
    const rowCount: unknown = payload.rowCount;
    return typeof rowCount === 'number' && Number.isSafeInteger(rowCount) && rowCount >= 0 ? rowCount : null;
  }
  const resourceSpans: unknown = payload?.export?.resourceSpans;
  if (!Array.isArray(resourceSpans)) return null;
  let n = 0;
  for (const rs of resourceSpans) {
    if (!Array.isArray(rs?.scopeSpans)) return null;
    for (const ss of rs.scopeSpans) {
      if (!Array.isArray(ss?.spans)) return null;
      n += ss.spans.length;
    }
  }
  return n;
}
